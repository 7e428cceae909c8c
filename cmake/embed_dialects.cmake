# Writes OUT, a C file holding the text of every DIR/*.yaml (the stock
# console dialects, profiles/dialects/), so that the dialect table has its
# rows without a profiles directory (src/lib/formats/dialect_table.h).
# Usage: cmake -DDIR=profiles/dialects -DOUT=dialects_builtin.c -P embed_dialects.cmake
file(GLOB files "${DIR}/*.yaml")
list(SORT files)
set(names "")
set(texts "")
foreach(f ${files})
  get_filename_component(base "${f}" NAME)
  file(READ "${f}" text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "?" "\\?" text "${text}")
  string(REPLACE "\n" "\\n\"\n    \"" text "${text}")
  string(APPEND names "    \"dialects/${base}\",\n")
  string(APPEND texts "    \"${text}\",\n")
endforeach()
file(WRITE "${OUT}.tmp"
  "/* Generated from the files of profiles/dialects/ by cmake/embed_dialects.cmake; do not edit. */\n"
  "#include \"formats/dialect_table.h\"\n\n"
  "const char *const eb_dialect_builtin_names[] = {\n${names}    NULL,\n};\n\n"
  "const char *const eb_dialect_builtin_texts[] = {\n${texts}    NULL,\n};\n")
execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
