# Writes INPUT as a C++ raw string literal to OUTPUT (for #include in an initializer):
# report_template.html is edited as HTML and compiled into svp_prof, so the program
# needs no data files at run time.
file(READ "${INPUT}" content)
set(delim "svp_prof_html")
string(FIND "${content}" ")${delim}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )${delim}\"")
endif()
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by embed_text.cmake; do not edit.\nR\"${delim}(${content})${delim}\"\n")
