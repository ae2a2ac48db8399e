# Makes one manual page (run by docs/man/CMakeLists.txt at build time):
#   cmake -DPAGE=rvtrace.1 -DTOOL=path/to/rvtrace -DOUT=file -P mkman.cmake
#   cmake -DPAGE=librvtrace.3 -DTEMPLATE=librvtrace.3.in -DEXAMPLE=file.c -DVERSION=x -DOUT=file -P mkman.cmake
if(PAGE STREQUAL "rvtrace.1")
  # The tool writes its own page from its --help texts.
  execute_process(COMMAND ${TOOL} --man OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TOOL} --man failed: ${rc}")
  endif()
else()
  file(READ ${TEMPLATE} page)
  file(READ ${EXAMPLE} ex)
  # roff: a backslash is \e; a line starting with . or ' needs \& first.
  string(REPLACE "\\" "\\e" ex "${ex}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" ex "${ex}")
  string(REGEX REPLACE "\n$" "" ex "${ex}")
  string(REPLACE "@RVT_EXAMPLE@" "${ex}" page "${page}")
  string(REPLACE "@RVT_VERSION@" "${VERSION}" page "${page}")
  file(WRITE ${OUT}.tmp "${page}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
