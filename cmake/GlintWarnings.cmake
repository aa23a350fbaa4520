# Warnings for the project's own targets (not for system headers).
function(glint_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
endfunction()
