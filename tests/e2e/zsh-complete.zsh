#!/usr/bin/zsh -f
# zsh-complete DIR LINE: the matches zsh's completion offers at the end of
# LINE (a command line typed so far), one a line, with DIR (where _bringup
# is) first on $fpath. An interactive zsh in a pseudo-terminal (zsh/zpty)
# runs compinit; compadd is wrapped to print each match it is given, then
# LINE and a TAB are typed. Exit 1 when the shell does not answer.
zmodload zsh/zpty || exit 1
[[ $# -eq 2 ]] || { print -u2 "usage: zsh-complete DIR LINE"; exit 2; }
zpty z zsh -f -i || exit 1
zpty -w z "PS1='<zp>' RPS1=''; fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd() { if [[ " $* " == *" -"[OAD]" "* ]]; then builtin compadd "$@"; return; fi;
local -a got; builtin compadd -A got "$@"; builtin compadd "$@"; local m;
for m in $got; do print -r -- "<match>$m</match>"; done > /dev/tty; }'
zpty -w z "zstyle ':completion:*' menu no; print -r -- READY\$((6*7))"
# the answer, then the next prompt: zle is reading keys (typed before it
# starts, they could be lost)
zpty -r z line '*READY42*' || exit 1
zpty -r z line '*<zp>*' || exit 1
zpty -w -n z "$2"$'\t'
zpty -w z $'\C-u'"print -r -- DONE\$((6*7))"
out='' n=0
while (( n < 200 )); do
	if zpty -r -t z line; then
		out+=$line
		[[ $line == *DONE42* ]] && break
	else
		sleep 0.05
	fi
	(( n++ ))
done
zpty -d z
[[ $out == *DONE42* ]] || exit 1
print -r -- "$out" | grep -o '<match>[^<]*</match>' | sed 's|^<match>||; s|</match>$||' | sort -u
