#!/usr/bin/env bash
# Bridge-bench agent: answers at once. The message says what to do: "q<ID> <FILLER>[c] <GATE> <PAUSE>".
# Prints the partial "p<ID>first ", FILLER partials "x" (in one write; with "c" the same text
# in one partial instead), waits for one line on
# the FIFO <GATEDIR>/<GATE> unless GATE is "-", sleeps PAUSE ms (so that the first text and the
# final text are two edits), appends
# "<ID> <started> <first partial> <exit>" (epoch seconds, microseconds; bash's own clock, no
# fork) to LOG, then prints "p<ID>last" and a result. Usage: instant.sh LOG GATEDIR
started=$EPOCHREALTIME
IFS= read -r turn
[[ $turn =~ \"message\":\"q([0-9]+)\ ([0-9]+)(c?)\ ([a-z0-9-]+)\ ([0-9]+) ]] || { echo '{"type":"error","message":"bad bench message"}'; exit 1; }
id=${BASH_REMATCH[1]} filler=${BASH_REMATCH[2]} one=${BASH_REMATCH[3]} gate=${BASH_REMATCH[4]} pause=${BASH_REMATCH[5]}
first=$EPOCHREALTIME
printf '{"type":"partial","text":"p%sfirst "}\n' "$id"
if (( filler > 0 )) && [[ -n $one ]]; then
  x=''
  for ((i = 0; i < filler; i++)); do x+=x; done
  printf '{"type":"partial","text":"%s"}\n' "$x"
elif (( filler > 0 )); then
  x=''
  for ((i = 0; i < filler; i++)); do x+=$'{"type":"partial","text":"x"}\n'; done
  printf '%s' "$x"
fi
[[ $gate != - ]] && IFS= read -r _ < "$2/$gate"
(( pause > 0 )) && sleep "$(printf '%d.%03d' $((pause / 1000)) $((pause % 1000)))"
# The log line goes first: once the result is out the bridge may end the turn (and the box
# with it) before a line after it is written. "exit" is the moment just before the last output.
echo "$id $started $first $EPOCHREALTIME" >> "$1"
printf '{"type":"partial","text":"p%slast"}\n{"type":"result","text":""}\n' "$id"
