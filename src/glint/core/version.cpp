namespace glint {
const char* version() { return GLINT_VERSION; }
}  // namespace glint
