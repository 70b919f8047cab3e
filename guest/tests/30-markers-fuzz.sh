# SPDX-License-Identifier: GPL-2.0
#
# A seeded fuzz of /sys/kernel/tracing/markers/enable against a model:
# commands that look like real ones (the markers of marker-example, names
# nobody defined, "!", blanks, names at and past the length limits, and
# malformed ones), each result predicted by the model, and after every
# write the enable file and the state column of the list compared with
# it. Switching a marker on makes its event (markers/NAME, a dynamic
# event) the first time; the events stay when off, and at the end they
# are exactly those of the markers switched on. The seed is printed; wb.fuzz_seed=N on the kernel command line
# replays a run, and wb.fuzz_writes=N sets the number of writes (400;
# the debug config writes fewer: under KASAN a write and its checks cost
# about 2 s of TCG). (The registry itself is fuzzed in the kernel, by the
# KUnit suite marker_fuzz.)
#
# Forks are slow under TCG: the loop draws with $RANDOM and shell
# arithmetic only, from pools made once.

suite markers_fuzz
M=/sys/kernel/tracing/markers
WRITES=$(cmdline_value wb.fuzz_writes)
[ -n "$WRITES" ] || WRITES=400
# The longest write: "!", a name of MARKER_NAME_MAX (64), a newline.
CMD_MAX=66

if [ ! -d "$M" ]; then
	skip "fuzz of the enable file" "no $M (no CONFIG_EVENT_TRACING)"
	return 0
fi

modprobe marker-example
before=$(cat "$M/list")
KNOWN=$(awk '$5 == "marker_example" { print $1 }' "$M/list" | sort -u | tr '\n' ' ')

seed=$(cmdline_value wb.fuzz_seed)
[ -n "$seed" ] || seed=$(($(od -An -N2 -tu2 /dev/urandom) + 1))
RANDOM=$seed
diag "seed $seed (wb.fuzz_seed=$seed replays it)"
echo "fuzz of the enable file: seed $seed"

# Names nobody defined, from the same seed: 12 of 4 to 24 characters, one
# of 64 (the longest name), and, malformed, 65 and 66 characters long.
UNKNOWN=$(awk -v seed="$seed" 'BEGIN {
	srand(seed)
	a = "abcdefghijklmnopqrstuvwxyz_0123456789"
	for (n = 0; n < 15; n++) {
		len = n < 12 ? 4 + int(rand() * 21) : (n == 12 ? 64 : 52 + n)
		s = "fz_"
		while (length(s) < len)
			s = s substr(a, 1 + int(rand() * length(a)), 1)
		print s
	}
}' | tr '\n' ' ')
set -- $UNKNOWN
LONG64=${13}
LONG65=${14}
LONG66=${15}
UNKNOWN=$(echo "$UNKNOWN" | cut -d' ' -f1-12)
MALFORMED="9fz_a fz-a ! !!sample_read fz.a sample_read! $LONG65 !$LONG65 $LONG66"

# pick WORDS...: sets P to one of them
pick() {
	shift $((RANDOM % $#))
	P=$1
}

# Sets NAME to a name (empty for a malformed command), OFF, CMD and
# BYTES, the length of CMD as written (try_write makes "\n" one byte).
command() {
	NAME=
	OFF=0
	BYTES=0
	case $((RANDOM % 10)) in
	0 | 1 | 2 | 3 | 4) pick $KNOWN; NAME=$P ;;
	5 | 6) pick $UNKNOWN; NAME=$P ;;
	7) NAME=$LONG64 ;;
	8) pick $MALFORMED; CMD=$P; return ;;
	*) pick "fz_a fz_b" " " "	" "sample read"; CMD=$P; return ;;
	esac
	OFF=$((RANDOM % 2))
	CMD=$NAME
	[ $OFF = 1 ] && CMD="!$NAME"
	BYTES=${#CMD}
	case $((RANDOM % 4)) in
	0) CMD="  $CMD"; BYTES=$((BYTES + 2)) ;;
	1) CMD="$CMD\n"; BYTES=$((BYTES + 1)) ;;
	esac
}

# What the model says CMD gives (RESULT), and its new state (ON, the
# markers switched on; the enable file lists them in no set order; MADE,
# those switched on at least once, whose events the writes made).
ON=
MADE=
predict() {
	if [ -z "$NAME" ] || [ $BYTES -gt $CMD_MAX ]; then
		RESULT="Invalid argument"
		return
	fi
	case " $ON " in
	*" $NAME "*) _on=1 ;;
	*) _on=0 ;;
	esac
	case " $KNOWN " in
	*" $NAME "*) _known=1 ;;
	*) _known=0 ;;
	esac
	if [ $OFF = 1 ] && [ $_on = 1 ]; then
		RESULT=ok
		_rest=
		for _n in $ON; do
			[ "$_n" = "$NAME" ] || _rest="$_rest $_n"
		done
		ON=$_rest
	elif [ $OFF = 1 ]; then
		RESULT="No such file or directory"
	elif [ $_on = 1 ]; then
		RESULT="Device or resource busy"
	elif [ $_known = 1 ]; then
		RESULT=ok
		ON="$ON $NAME"
		case " $MADE " in
		*" $NAME "*) ;;
		*) MADE="$MADE $NAME" ;;
		esac
	else
		RESULT="No such file or directory"
	fi
}

# The state column of the list, and the model's, for marker-example.
list_states() {
	awk '$5 == "marker_example" { print $1, $2 }' "$M/list" | sort -u
}

model_states() {
	for _k in $KNOWN; do
		case " $ON " in
		*" $_k "*) echo "$_k on" ;;
		*) echo "$_k off" ;;
		esac
	done
}

i=0
bad=
well_formed=0
while [ $i -lt $WRITES ]; do
	command
	predict
	[ "$RESULT" = "Invalid argument" ] || well_formed=$((well_formed + 1))
	got=$(try_write "$M/enable" "$CMD")
	if [ "$got" != "$RESULT" ]; then
		bad="write $i \"$CMD\": $got, the model says $RESULT"
	elif [ "$(sort "$M/enable")" != "$(printf '%s\n' $ON | sort)" ]; then
		bad="after write $i \"$CMD\": enable has $(cat "$M/enable" | tr '\n' ' '), the model:$ON"
	elif [ "$(list_states)" != "$(model_states)" ]; then
		bad="after write $i \"$CMD\": the list says $(list_states | tr '\n' ' ')"
	fi
	# The first mismatch tells; the model is off the rails after it.
	[ -n "$bad" ] && break
	i=$((i + 1))
done
diag "$i writes, $well_formed well-formed; on at the end:$ON"
expect_eq "$WRITES writes give what the model predicts, enable and list follow it (seed $seed)" \
	"" "$bad"

for name in $ON; do
	try_write "$M/enable" "!$name" >/dev/null
done
expect_eq "all off again: the list is as before" "$before" "$(cat "$M/list")"
expect_eq "the writes made an event for each marker switched on, and no other" \
	"$(for name in $MADE; do echo "$name"; done | sort | tr '\n' ' ')" \
	"$(mev_events | sed -n 's|^m:markers/\([^ ]*\) .*|\1|p' | sort | tr '\n' ' ')"
expect "rmmod marker-example" rmmod marker_example
left=
for name in $(mev_events | sed -n 's|^m:markers/\([^ ]*\) .*|\1|p'); do
	mev_drop "$name" > /dev/null || left="$left $name"
done
expect_eq "the events the writes made are removed" "" "$left$(mev_events)"

# The registry's fuzz as a module (CONFIG_MARKERS_FUZZ_KUNIT_TEST=m, the
# clang config): loading it runs its suite, with a seed given; its site is
# the module's while it is loaded; debugfs runs it again with another
# seed; unloading it takes its site and its suite away. (Cases of this
# script's suite: a built-in fuzz skips the first, and a suite of skips
# alone would fail as one that proves nothing.)
if ! module_built marker_fuzz_kunit; then
	skip "the registry fuzz as a module" \
		"marker_fuzz_kunit is built in here: the KUnit phases run it"
	return 0
fi
KD=/sys/kernel/debug/kunit/marker_fuzz
# fuzz_run SEED: of the suite's last run in debugfs (which holds the run at
# load until another one): its lines naming SEED, its failed results, its
# case's result and its own.
fuzz_run() {
	echo "$(grep -c "seed $1 (marker_fuzz_kunit.seed=$1 replays it)" "$KD/results")" \
		"$(grep -c '^ *not ok ' "$KD/results")" \
		"$(grep -c '^ *ok 1 marker_registry_fuzz$' "$KD/results")" \
		"$(grep -c '^ok 1 marker_fuzz$' "$KD/results")"
}
expect "modprobe marker_fuzz_kunit seed=4242" modprobe marker_fuzz_kunit seed=4242
expect_eq "its suite ran at load with the seed given to modprobe, and passed" \
	"1 0 1 1" "$(fuzz_run 4242)"
expect_eq "its site is the module's, off and without probes after the run" \
	"marker_fuzz_site off 0 1 marker_fuzz_kunit" \
	"$(awk '$1 == "marker_fuzz_site" { print $1, $2, $3, $4, $5 }' "$M/list")"
echo 77 > /sys/module/marker_fuzz_kunit/parameters/seed
echo run > "$KD/run"
expect_eq "debugfs runs it again, with the seed its parameter holds, and it passes" \
	"1 0 1 1" "$(fuzz_run 77)"
expect "rmmod marker_fuzz_kunit" rmmod marker_fuzz_kunit
expect_eq "its site and its suite went with it" "0 no" \
	"$(awk '$1 == "marker_fuzz_site"' "$M/list" | wc -l) $([ -d "$KD" ] && echo yes || echo no)"
