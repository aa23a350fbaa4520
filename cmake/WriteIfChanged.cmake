# For the generator scripts (cmake -P): writes CONTENT to PATH only when it differs from what
# is there, through a temporary file and a rename, so that an unchanged input recompiles
# nothing and a stopped build never leaves half a file.
function(glint_write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${path}.tmp" "${content}")
  file(RENAME "${path}.tmp" "${path}")
endfunction()
