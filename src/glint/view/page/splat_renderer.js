// WebGL2 state of the splat passes: the model in a float texture; per camera, a projection
// pass (one vertex a splat, captured by transform feedback into a texture); the
// back-to-front order in an integer texture; one indexed draw of a quad a splat into a
// float render target the size of the camera's image; the display pass to the canvas.
import { projectVertexShader, projectFragmentShader, quadVertexShader, splatFragmentShader, displayVertexShader,
         displayFragmentShader, splatGBufferFragmentShader, MODE_COLOR } from './splat_shaders.js';
import { cameraCenter, jacobianLimits } from './camera.js';

const kNearPlane = 0.01;  // RenderSettings' default near plane

function compile(gl, type, src) {
  const s = gl.createShader(type);
  gl.shaderSource(s, src);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error('shader: ' + gl.getShaderInfoLog(s));
  return s;
}

export function link(gl, vs, fs, captured = null) {
  const p = gl.createProgram();
  gl.attachShader(p, compile(gl, gl.VERTEX_SHADER, vs));
  gl.attachShader(p, compile(gl, gl.FRAGMENT_SHADER, fs));
  if (captured) gl.transformFeedbackVaryings(p, captured, gl.INTERLEAVED_ATTRIBS);
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error('program: ' + gl.getProgramInfoLog(p));
  const u = {};
  const n = gl.getProgramParameter(p, gl.ACTIVE_UNIFORMS);
  for (let i = 0; i < n; ++i) {
    const name = gl.getActiveUniform(p, i).name;
    u[name] = gl.getUniformLocation(p, name);
  }
  return { program: p, u };
}

export class SplatRenderer {
  constructor(gl, model) {
    this.gl = gl;
    this.model = model;
    // Float blending into a 32-bit target keeps the comparison with the CPU renderer exact
    // to float rounding; without it, half floats (blendable in WebGL2 with the extension).
    const cbf = gl.getExtension('EXT_color_buffer_float');
    const fblend = gl.getExtension('EXT_float_blend');
    if (cbf && fblend) this.target = { internal: gl.RGBA32F, type: gl.FLOAT, name: 'rgba32f' };
    else if (cbf) this.target = { internal: gl.RGBA16F, type: gl.HALF_FLOAT, name: 'rgba16f' };
    else this.target = { internal: gl.RGBA8, type: gl.UNSIGNED_BYTE, name: 'rgba8' };
    this.project = link(gl, projectVertexShader, projectFragmentShader, ['p_mean_ext', 'p_conic_op', 'p_value_cut']);
    this.splat = link(gl, quadVertexShader, splatFragmentShader);
    // The lit view's G-buffer: two more texels a splat, three targets in one draw.
    this.projectG = link(gl, projectVertexShader, projectFragmentShader,
                         ['p_mean_ext', 'p_conic_op', 'p_value_cut', 'p_gbuf0', 'p_gbuf1']);
    this.splatG = link(gl, quadVertexShader, splatGBufferFragmentShader);
    this.display = link(gl, displayVertexShader, displayFragmentShader);
    // The sub-pixel grid the rasterizer snaps vertices to (the quad vertex shader puts its
    // corners on it).
    this.subpixel = 2 ** Math.min(16, Math.max(0, gl.getParameter(gl.SUBPIXEL_BITS)));
    this.uploadModel(model);
    this.vao = gl.createVertexArray();  // no attributes; holds the index buffer
    gl.bindVertexArray(this.vao);
    const quads = new Uint32Array(6 * model.count);
    for (let i = 0; i < model.count; ++i) quads.set([4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 1, 4 * i + 3, 4 * i + 2], 6 * i);
    const ibo = gl.createBuffer();
    this.ibo = ibo;
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ibo);
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, quads, gl.STATIC_DRAW);
    gl.bindVertexArray(null);
    this.orderWidth = 4096;  // kOrderWidth of the vertex shader
    this.orderTex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, this.orderTex);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    this.orderRows = Math.max(1, Math.ceil(model.count / this.orderWidth));
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.R32UI, this.orderWidth, this.orderRows);
    this.orderStaging = new Uint32Array(this.orderWidth * this.orderRows);
    // What the projection pass writes, three RGBA32F texels a splat (five for the G-buffer):
    // captured into a buffer, then copied (on the GPU) into a texture the quad pass reads
    // by splat index.
    this.projWidth = 4096;
    const projRows = Math.max(1, Math.ceil(5 * model.count / this.projWidth));
    this.projBuffer = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, this.projBuffer);
    gl.bufferData(gl.ARRAY_BUFFER, this.projWidth * projRows * 16, gl.DYNAMIC_COPY);
    gl.bindBuffer(gl.ARRAY_BUFFER, null);
    this.projRows = projRows;
    this.projTex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, this.projTex);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, this.projWidth, projRows);
    this.feedback = gl.createTransformFeedback();
    this.emptyVao = gl.createVertexArray();
    this.drawCount = 0;
    this.fbo = null;
    this.fboSize = [0, 0];
  }

  // Texels of splat i: mean + opacity logit, log-scale, quaternion, then dc and rest SH
  // coefficients four to a texel.
  uploadModel(m) {
    const gl = this.gl;
    const shFloats = 3 * (m.shDegree + 1) * (m.shDegree + 1);
    this.stride = 3 + Math.ceil(shFloats / 4);
    const texels = m.count * this.stride;
    const maxSize = gl.getParameter(gl.MAX_TEXTURE_SIZE);
    this.texWidth = Math.min(maxSize, 4096);
    const height = Math.max(1, Math.ceil(texels / this.texWidth));
    if (height > maxSize) throw new Error(`model: ${m.count} splats do not fit a ${maxSize}^2 texture`);
    const data = new Float32Array(this.texWidth * height * 4);
    const rest = shFloats - 3;
    for (let i = 0; i < m.count; ++i) {
      const o = i * this.stride * 4;
      data[o] = m.means[3 * i]; data[o + 1] = m.means[3 * i + 1]; data[o + 2] = m.means[3 * i + 2];
      data[o + 3] = m.opacityLogits[i];
      data[o + 4] = m.logScales[3 * i]; data[o + 5] = m.logScales[3 * i + 1]; data[o + 6] = m.logScales[3 * i + 2];
      for (let k = 0; k < 4; ++k) data[o + 8 + k] = m.quats[4 * i + k];
      const sh = o + 12;
      for (let c = 0; c < 3; ++c) data[sh + c] = m.shDc[3 * i + c];
      for (let k = 0; k < rest; ++k) data[sh + 3 + k] = m.shRest[i * rest + k];
    }
    this.tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, this.tex);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, this.texWidth, height, 0, gl.RGBA, gl.FLOAT, data);
    // The baked per-splat AO (the lit G-buffer pass reads it), or one texel of 1 where glint sent none.
    this.hasAo = Boolean(m.splatAo);
    const aoRows = this.hasAo ? Math.max(1, Math.ceil(m.count / 4096)) : 1;
    const ao = new Float32Array((this.hasAo ? 4096 : 1) * aoRows * 2).fill(1);
    if (this.hasAo) ao.set(m.splatAo);
    this.aoTex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, this.aoTex);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RG32F, this.hasAo ? 4096 : 1, aoRows, 0, gl.RG, gl.FLOAT, ao);
  }

  setOrder(order) {
    const gl = this.gl;
    const rows = Math.max(1, Math.ceil(order.length / this.orderWidth));
    this.orderStaging.set(order);
    gl.bindTexture(gl.TEXTURE_2D, this.orderTex);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, this.orderWidth, rows, gl.RED_INTEGER, gl.UNSIGNED_INT,
                     this.orderStaging.subarray(0, rows * this.orderWidth));
    this.drawCount = order.length;
    this.order = order;  // kept so that a light's pass can put the camera's order back
  }

  ensureTarget(w, h) {
    const gl = this.gl;
    if (this.fbo && this.fboSize[0] === w && this.fboSize[1] === h) return;
    if (this.fbo) {
      gl.deleteFramebuffer(this.fbo);
      gl.deleteTexture(this.fboTex);
    }
    this.fboTex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, this.fboTex);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texStorage2D(gl.TEXTURE_2D, 1, this.target.internal, w, h);
    this.fbo = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.fbo);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, this.fboTex, 0);
    const st = gl.checkFramebufferStatus(gl.FRAMEBUFFER);
    if (st !== gl.FRAMEBUFFER_COMPLETE) throw new Error(`render target ${this.target.name} incomplete (0x${st.toString(16)})`);
    this.fboSize = [w, h];
  }

  // Projects every splat for `cam` (culling, 2D conic, cut, the value it blends): one
  // vertex a splat, nothing rasterized, the outputs captured and copied to projTex.
  projectSplats(cam, mode, gbuffer = false) {
    const gl = this.gl;
    const { program, u } = gbuffer ? this.projectG : this.project;
    this.projStride = gbuffer ? 5 : 3;
    gl.useProgram(program);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, this.tex);
    gl.uniform1i(u.u_splats, 0);
    gl.activeTexture(gl.TEXTURE2);
    gl.bindTexture(gl.TEXTURE_2D, this.aoTex);
    gl.uniform1i(u.u_ao, 2);
    gl.activeTexture(gl.TEXTURE3);
    gl.bindTexture(gl.TEXTURE_2D, this.splatData || this.aoTex);  // MODE_ENV_VIS reads it
    gl.uniform1i(u.u_envVis, 3);
    gl.uniform1i(u.u_stride, this.stride);
    gl.uniform1i(u.u_texWidth, this.texWidth);
    gl.uniform1i(u.u_shDegree, this.model.shDegree);
    gl.uniform1i(u.u_antialiased, this.model.antialiased ? 1 : 0);
    gl.uniform1i(u.u_mode, mode);
    const R = cam.R;
    gl.uniform3f(u.u_R0, R[0], R[1], R[2]);
    gl.uniform3f(u.u_R1, R[3], R[4], R[5]);
    gl.uniform3f(u.u_R2, R[6], R[7], R[8]);
    gl.uniform3f(u.u_t, cam.t[0], cam.t[1], cam.t[2]);
    const c = cameraCenter(cam);
    gl.uniform3f(u.u_campos, c[0], c[1], c[2]);
    gl.uniform4f(u.u_intr, cam.fx, cam.fy, cam.cx, cam.cy);
    const lim = jacobianLimits(cam);
    gl.uniform4f(u.u_lim, lim[0], lim[1], lim[2], lim[3]);
    gl.uniform2f(u.u_size, cam.width, cam.height);
    gl.uniform1f(u.u_near, kNearPlane);
    gl.bindVertexArray(this.emptyVao);
    gl.enable(gl.RASTERIZER_DISCARD);
    gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, this.feedback);
    gl.bindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, this.projBuffer);
    gl.beginTransformFeedback(gl.POINTS);
    gl.drawArrays(gl.POINTS, 0, this.model.count);
    gl.endTransformFeedback();
    gl.bindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, null);
    gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, null);
    gl.disable(gl.RASTERIZER_DISCARD);
    gl.bindVertexArray(null);
    gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, this.projBuffer);
    gl.bindTexture(gl.TEXTURE_2D, this.projTex);
    const rows = Math.min(this.projRows, Math.max(1, Math.ceil(this.projStride * this.model.count / this.projWidth)));
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, this.projWidth, rows, gl.RGBA, gl.FLOAT, 0);
    gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, null);
  }

  // Draws the current order for `cam` into the float target; `background` fills where no
  // splat is (alpha stays 0 there, as the renderer's alpha output). `out` ({fbo, first,
  // count}, optional) draws into another framebuffer of the camera's size instead, and
  // only the slots [first, first + count) of the order.
  render(cam, mode, background, out = null) {
    const gl = this.gl;
    // A new order for the same camera (a sort arriving) needs no new projection.
    this.splatData = out && out.splatData ? out.splatData.texture : null;
    const gbuffer = Boolean(out && out.gbuffer);
    const key = JSON.stringify([cam, mode, out && out.splatData ? out.splatData.key : '', gbuffer]);
    if (key !== this.projectedFor) {
      this.projectSplats(cam, mode, gbuffer);
      this.projectedFor = key;
    }
    if (!out) this.ensureTarget(cam.width, cam.height);
    gl.bindFramebuffer(gl.FRAMEBUFFER, out ? out.fbo : this.fbo);
    gl.viewport(0, 0, cam.width, cam.height);
    const bg = mode === MODE_COLOR ? background : [0, 0, 0];
    gl.clearColor(bg[0], bg[1], bg[2], 0);
    gl.clear(gl.COLOR_BUFFER_BIT);
    gl.enable(gl.BLEND);
    gl.blendEquation(gl.FUNC_ADD);
    gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);  // premultiplied "over", back to front
    gl.disable(gl.DEPTH_TEST);
    gl.disable(gl.CULL_FACE);
    const { program, u } = gbuffer ? this.splatG : this.splat;
    gl.useProgram(program);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, this.projTex);
    gl.uniform1i(u.u_projected, 0);
    gl.uniform1i(u.u_projStride, this.projStride);
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_2D, this.orderTex);
    gl.uniform1i(u.u_order, 1);
    gl.uniform1i(u.u_projWidth, this.projWidth);
    gl.uniform2f(u.u_size, cam.width, cam.height);
    gl.uniform1f(u.u_subpixel, this.subpixel);
    gl.bindVertexArray(this.vao);
    const first = out && out.first ? out.first : 0;
    const count = out && out.count !== undefined ? out.count : this.drawCount - first;
    if (count > 0) gl.drawElements(gl.TRIANGLES, 6 * count, gl.UNSIGNED_INT, 24 * first);
    gl.bindVertexArray(null);
    gl.disable(gl.BLEND);
  }

  // The float target onto the canvas (sized to the image by the caller).
  present(mode, depthRange) {
    const gl = this.gl;
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    gl.viewport(0, 0, this.fboSize[0], this.fboSize[1]);
    const { program, u } = this.display;
    gl.useProgram(program);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, this.fboTex);
    gl.uniform1i(u.u_image, 0);
    gl.uniform1i(u.u_mode, mode);
    gl.uniform2f(u.u_depthRange, depthRange[0], depthRange[1]);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
  }

  // A per-splat RGBA32F texture of `texelsPerSplat` texels a splat, 4096 a row, for the
  // modes that read one (out.splatData of render()).
  splatTexture(data, texelsPerSplat) {
    const gl = this.gl;
    const texels = this.model.count * texelsPerSplat;
    const rows = Math.max(1, Math.ceil(texels / 4096));
    const padded = new Float32Array(4096 * rows * 4);
    padded.set(data.subarray(0, texels * 4));
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, 4096, rows, 0, gl.RGBA, gl.FLOAT, padded);
    return tex;
  }

  // Frees the GPU objects (a live view replaces the renderer with each model).
  dispose() {
    const gl = this.gl;
    for (const t of [this.tex, this.aoTex, this.orderTex, this.projTex, this.fboTex]) if (t) gl.deleteTexture(t);
    for (const b of [this.projBuffer, this.ibo]) if (b) gl.deleteBuffer(b);
    for (const a of [this.vao, this.emptyVao]) gl.deleteVertexArray(a);
    if (this.fbo) gl.deleteFramebuffer(this.fbo);
    gl.deleteTransformFeedback(this.feedback);
    for (const p of [this.project, this.splat, this.display, this.projectG, this.splatG]) gl.deleteProgram(p.program);
  }

  // RGBA floats of the target, rows top to bottom (the renderer's image order).
  readTarget() {
    const gl = this.gl;
    const [w, h] = this.fboSize;
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.fbo);
    const px = new Float32Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.FLOAT, px);
    const out = new Float32Array(w * h * 4);
    for (let y = 0; y < h; ++y) out.set(px.subarray((h - 1 - y) * w * 4, (h - y) * w * 4), y * w * 4);
    return out;
  }
}

export { kNearPlane };
