# Writes mdfi.1 from the binary's own help: `mdfi --help`, then `mdfi COMMAND --help` for every
# command listed under "Subcommands:". The help text is written to be the manual (main.cpp), so
# the page cannot drift from the options. Called as:
#   cmake -DMDFI=path/to/mdfi [-DEMULATOR=qemu,-L,...] -DOUT=mdfi.1 -DVERSION=x.y.z -P make_manpage.cmake
string(REPLACE "," ";" _emu "${EMULATOR}")

# The help is wrapped at $COLUMNS below 80 (app/help_format.h). man indents the text of a
# section by 7 columns and leaves the no-fill blocks below unwrapped, so 72 columns of help fit
# an 80-column terminal.
set(_help_columns 72)

function(mdfi_help out_var)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env COLUMNS=${_help_columns} ${_emu} ${MDFI} ${ARGN} --help
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _text ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "make_manpage: '${MDFI} ${ARGN} --help' failed (${_rc}): ${_err}")
  endif()
  set(${out_var} "${_text}" PARENT_SCOPE)
endfunction()

# troff: backslashes doubled, and a line starting with '.' or '\'' would be a request.
function(mdfi_roff out_var text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

mdfi_help(_top)
string(FIND "${_top}" "Subcommands:" _at)
if(_at EQUAL -1)
  message(FATAL_ERROR "make_manpage: no 'Subcommands:' in mdfi --help")
endif()
string(SUBSTRING "${_top}" ${_at} -1 _subs)
# The command list ends at the first blank line; each entry is "  NAME   description".
string(FIND "${_subs}" "\n\n" _end)
string(SUBSTRING "${_subs}" 0 ${_end} _subs)
string(REGEX MATCHALL "\n  [a-z][a-z-]*" _entries "${_subs}")
set(_names "")
foreach(_e ${_entries})
  string(STRIP "${_e}" _e)
  list(APPEND _names ${_e})
endforeach()

# The usage lines name the binary by the path it was run from.
string(REPLACE "${MDFI}" "mdfi" _top "${_top}")
mdfi_roff(_top_roff "${_top}")
set(_page ".TH MDFI 1 \"\" \"mdfi ${VERSION}\" \"User Commands\"\n")
string(APPEND _page ".SH NAME\nmdfi \\- run Darknet .cfg/.weights networks in little memory\n")
string(APPEND _page ".SH SYNOPSIS\n.B mdfi\n[\\fB\\-q\\fR|\\fB\\-v\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIIMAGES\\fR...]\n")
string(APPEND _page ".SH DESCRIPTION\nThe text below is the program's own \\fB\\-\\-help\\fR output.\n.PP\n.nf\n${_top_roff}.fi\n")
string(APPEND _page ".SH COMMANDS\n")
foreach(_c ${_names})
  mdfi_help(_h ${_c})
  string(REPLACE "${MDFI}" "mdfi" _h "${_h}")
  mdfi_roff(_h "${_h}")
  string(APPEND _page ".SS mdfi ${_c}\n.nf\n${_h}.fi\n")
endforeach()
# Filled text (troff wraps it), one source line per clause.
string(APPEND _page ".SH FILES\n.TP\n.I <prefix>/share/mdfi/cfg, <prefix>/share/mdfi/data\n"
                    "cfgs of the named networks and label lists, found relative to the executable\n"
                    "(then \\fBMDFI_DATA_DIR\\fR); built-in copies are used when they are absent.\n"
                    ".TP\n.I ~/.local/share/mdfi/weights\nwhere \\fB\\-\\-net\\fR looks for official weights\n"
                    "(\\fBMDFI_WEIGHTS_DIR\\fR overrides) when \\fB\\-\\-weights\\fR is not given,\n"
                    "after \\fBMDFI_WEIGHTS\\fR (a file), the working directory and the directory\n"
                    "holding the mdfi binary, in that order.\n")
file(WRITE ${OUT}.tmp "${_page}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
