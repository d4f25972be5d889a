#!/bin/sh
# Catch 2's console reporter wraps a test's or section's name under the end of its first ": ".
# Past column 77 of its 79 that indent leaves a line no room (TextFlow's width - indent in size_t:
# 1 makes no progress, 0 or less wraps around), and printing a failure then never ends: ctest sees
# a hang, not the failure. Found on a test named "...first stage: 205549568 bytes...". Held here
# with room to spare: a name longer than a line has its first ": " end before column 70.
# A name starting with "-" is read by the test binary as an option, and the run given it by
# ctest hung (found on "--out over a 0600 file..."): none may.
# $1: the tests folder.
grep -rhoE '(TEST_CASE|SECTION)\("[^"]*"' "$1" | awk '
  { name = $0; header = (name ~ /^SECTION/) ? 2 : 0
    sub(/^(TEST_CASE|SECTION)\("/, "", name); sub(/"$/, "", name)
    if (name ~ /^-/) { print "FAIL: starts with -: " name; bad = 1 }
    at = index(name, ": ")
    if (length(name) + header > 79 && at > 0 && header + at + 1 >= 70) { print "FAIL: indent " header + at + 1 ": " name; bad = 1 } }
  END { exit bad }'
