#!/bin/sh
# A Chinese chart as PNG where no installed font has Chinese characters is refused, naming the
# package to install, and leaves no file: never a chart of empty boxes. Fontconfig is pointed at
# a configuration that knows only DejaVu. The English chart still draws.
# $1: the rooflineplan binary; $2: a scratch folder.
set -u
bin=$1 dir=$2
mkdir -p "$dir"
cat > "$dir/fonts.conf" <<CONF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>$dir/cache</cachedir></fontconfig>
CONF
rm -f "$dir/zh.png" "$dir/en.png"
err=$(FONTCONFIG_FILE="$dir/fonts.conf" "$bin" plot -m llama-3.1-8b -g h100-sxm --kind batch --lang zh -o "$dir/zh.png" 2>&1 >/dev/null)
code=$?
case "$err" in *"cannot write PNG"*) echo "skipped: this build has no Cairo"; exit 0 ;; esac
fail=0
[ $code = 1 ] || { echo "FAIL: exit $code, not 1: $err"; fail=1; }
case "$err" in *"fonts-noto-cjk"*) ;; *) echo "FAIL: the package is not named: $err"; fail=1 ;; esac
[ ! -e "$dir/zh.png" ] || { echo "FAIL: a PNG was left behind"; fail=1; }
FONTCONFIG_FILE="$dir/fonts.conf" "$bin" plot -m llama-3.1-8b -g h100-sxm --kind batch -o "$dir/en.png" >/dev/null ||
  { echo "FAIL: the English chart was refused too"; fail=1; }
[ $fail = 0 ] && echo "png font: 4 passed, 0 failed"
exit $fail
