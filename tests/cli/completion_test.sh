#!/bin/sh
# The generated bash completion completes subcommands, a subcommand's own flags and preset names.
# $1: the script that `rooflineplan completion` wrote.
exec bash -c '
set -u
. "$1"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _rooflineplan; echo "${COMPREPLY[*]}"; }
fail=0
check() { case " $2 " in *" $3 "*) ;; *) echo "FAIL: $1: \"$3\" not in: $2"; fail=1 ;; esac; }
check "subcommand" "$(complete_words rooflineplan pl)" plot
check "subcommand" "$(complete_words rooflineplan pl)" plan
check "plot flag" "$(complete_words rooflineplan plot --ki)" --kind
check "model preset" "$(complete_words rooflineplan plot -m llama-2-7)" llama-2-7b
check "gpu preset" "$(complete_words rooflineplan --gpu h10)" h100-sxm
check "convert preset" "$(complete_words rooflineplan convert mixt)" mixtral-8x7b
check "weight format" "$(complete_words rooflineplan --weights mx)" mxfp4
check "lm-head format" "$(complete_words rooflineplan sweep --lm-head fp8-b)" fp8-block
check "kv dtype" "$(complete_words rooflineplan --kv fp)" fp8
check "plot flag" "$(complete_words rooflineplan plot --la)" --lang
out=$(complete_words rooflineplan sweep --la)
case " $out " in *" --lang "*) echo "FAIL: the --lang of explain and plot offered to sweep"; fail=1 ;; esac
out=$(complete_words rooflineplan fit llama-2-7)
case " $out " in *" llama-2-7b "*) echo "FAIL: a model preset offered as fit'"'"'s measurements CSV"; fail=1 ;; esac
[ $fail = 0 ] && echo "completion: 12 passed, 0 failed"
exit $fail
' sh "$1"
