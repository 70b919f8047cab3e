#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch-markers.sh - check the kernel markers of sources, patches or
# binaries. See Documentation/markers.txt.
#
# Usage:
#   [FILE.c|FILE.h|FILE.patch|-]...	check sources, or the lines a patch adds
#   --binary [-v] [vmlinux|FILE.ko]...	check the compiled sites
#
# Source mode checks every MARK(), MARK_PRIVATE(), _MARK() and
# marker_enabled() of the files (for a patch: of the lines it adds to C
# files):
#   - the name is an identifier of the form subsystem_event;
#   - the format is a string literal (or MARK_NOARGS);
#   - the format has as many conversions as the site has arguments;
#   - no marker in noinstr or entry code, and no patched marker (MARK(),
#     MARK_PRIVATE(), marker_enabled()) in __init or __exit code, where
#     _MARK() belongs;
#   - one name never has two formats, across all the files given.
#
# FILE "-" is standard input: a patch if one of its lines starts with
# "diff --git", "--- " or "+++ ", C source reported as <stdin> if not.
#
# Binary mode checks that every patched site recorded in __marker_sites
# holds the bytes documented in include/linux/marker.h, as built; on
# x86-64:
#   66 90  83 fc 00  72 <rel8> (or 0f 82 <rel32>)
# and every recorded call of a probe block a call:
#   e8 <rel32>
# on arm64 (nop, and bl <fn>):
#   1f 20 03 d5
#   <bl>
#
# With -v every site is listed on standard error with its bytes.
# Findings are printed as FILE:LINE: message. A FILE that cannot be read
# is reported on standard error and the other files are still checked.
# Exit status: 0 no finding, 1 findings or a FILE that cannot be read,
# 2 usage error or missing tool.

set -o pipefail

EXIT_FINDINGS=1
EXIT_ERROR=2
# struct site_entry (include/linux/site_table.h): s32 code, s32 key, 4 bytes.
SITE_ENTRY_SIZE=12

# Prints the header of this file, from its fourth line to the first line
# that is not a comment.
usage()
{
	sed -n '4,${/^#/!q;s/^# \{0,1\}//p}' "$0" >&2
	exit $EXIT_ERROR
}

unreadable()
{
	echo "checkpatch-markers: cannot read $1" >&2
}

# need TOOL...: every tool must be on PATH.
need()
{
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 && continue
		echo "checkpatch-markers: $tool is needed (binutils)" >&2
		exit $EXIT_ERROR
	done
}

# lines_of MODE NAME: the lines of standard input to check, as
# "FILE<TAB>LINE<TAB>ADDED<TAB>TEXT". ADDED is 1 for a line to report on; a
# patch also gives its context lines, with ADDED 0, so that the enclosing
# function of an added line is known, and starts each hunk with ADDED "H"
# and the function header diff gives in the hunk line. MODE is "source"
# (FILE is NAME), "patch" (FILE is the C file a hunk changes) or "auto",
# which reads all the input first to tell a patch from source.
lines_of()
{
	awk -v mode="$1" -v name="$2" '
	function patch_line(s,    f, a, ctx) {
		split(s, f)
		if (s ~ /^\+\+\+ /) {
			file = f[2]
			sub(/^b\//, "", file)
			if (file !~ /\.[ch]$/)
				file = ""
		} else if (s ~ /^@@ /) {
			split(f[3], a, /[+,]/)
			line = a[2]
			ctx = s
			sub(/^@@[^@]*@@ ?/, "", ctx)
			printf "%s\t%d\tH\t%s\n", file, line, ctx
		} else if (file == "" || line == "") {
			return
		} else if (s ~ /^\+/) {
			printf "%s\t%d\t1\t%s\n", file, line++, substr(s, 2)
		} else if (s ~ /^ /) {
			printf "%s\t%d\t0\t%s\n", file, line++, substr(s, 2)
		}
	}

	function source_line(s, n) {
		printf "%s\t%d\t1\t%s\n", name, n, s
	}

	mode == "auto" {
		input[NR] = $0
		if ($0 ~ /^(diff --git|--- |\+\+\+ )/)
			patch = 1
		next
	}
	mode == "patch" { patch_line($0); next }
	{ source_line($0, NR) }

	END {
		if (mode == "auto")
			for (i = 1; i <= NR; i++)
				if (patch)
					patch_line(input[i])
				else
					source_line(input[i], i)
	}'
}

# source_lines FILE...: the lines to check of every FILE (see lines_of), a
# patch by its name, standard input for "-". A FILE that cannot be read is
# reported and the others are still given; the status is then 1.
source_lines()
{
	local f mode status=0

	for f in "$@"; do
		if [ "$f" = - ]; then
			lines_of "auto" "<stdin>" && continue
		elif [ -r "$f" ] && [ ! -d "$f" ]; then
			case "$f" in
			*.patch|*.diff)
				mode="patch"
				;;
			*)
				mode="source"
				;;
			esac
			# shellcheck disable=SC2094 # "$f" is only read; it names the lines
			lines_of "$mode" "$f" < "$f" && continue
		fi
		unreadable "$f"
		status=$EXIT_FINDINGS
	done
	return $status
}

# Scans C text for marker calls; see the header of this file. The status is
# the checker's, or that of source_lines if the checker found nothing.
check_sources()
{
	source_lines "$@" | awk -F '\t' '
	function report(file, line, msg) {
		printf "%s:%d: %s\n", file, line, msg
		findings++
	}

	# The conversions of a printf format: %% is none, * takes an argument.
	function conversions(fmt,    n, i, c, spec) {
		n = 0
		for (i = 1; i <= length(fmt); i++) {
			if (substr(fmt, i, 1) != "%")
				continue
			if (substr(fmt, i + 1, 1) == "%") {
				i++
				continue
			}
			for (i++; i <= length(fmt); i++) {
				c = substr(fmt, i, 1)
				if (c == "*")
					n++
				else if (c ~ /[diouxXcsp]/) {
					n++
					break
				} else if (c !~ /[-+ #0-9.hlzjtL]/) {
					n = -1000
					break
				}
			}
		}
		return n
	}

	# A format argument: adjacent string literals, or MARK_NOARGS.
	# Returns the text of the format, or the string "\001" if it is not one.
	function literal(arg,    out, rest, m) {
		if (arg == "MARK_NOARGS")
			return " "
		out = ""
		rest = arg
		while (rest != "") {
			if (!match(rest, /^"([^"\\]|\\.)*"[ \t]*/))
				return "\001"
			m = substr(rest, RSTART, RLENGTH)
			sub(/[ \t]*$/, "", m)
			out = out substr(m, 2, length(m) - 2)
			rest = substr(rest, RLENGTH + 1)
		}
		return out
	}

	function check_call(kind, args, nargs, file, line, added, fn_attr,
			    name, fmt, text, nconv, first) {
		name = args[1]
		if (name !~ /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/)
			report(file, line, "marker name \"" name "\" is not an identifier " \
			       "of the form subsystem_event")
		if (fn_attr ~ /noinstr|entry/)
			report(file, line, kind "() in " fn_attr " code: " \
			       "markers must not be used there")
		else if (fn_attr ~ /__init|__exit/ && kind != "_MARK")
			report(file, line, kind "() in " fn_attr " code: " \
			       "use _MARK(), which is never patched")
		if (kind == "marker_enabled")
			return
		first = (kind == "MARK_PRIVATE") ? 3 : 2
		if (nargs < first) {
			report(file, line, kind "() without a format")
			return
		}
		fmt = args[first]
		text = literal(fmt)
		if (text == "\001") {
			report(file, line, "the format of " name " is not a string literal: " fmt)
			return
		}
		nconv = conversions(text)
		if (nconv < 0)
			report(file, line, "the format of " name \
			       " has an unknown conversion: \"" text "\"")
		else if (nconv != nargs - first)
			report(file, line, "the format of " name " has " nconv \
			       " conversions for " nargs - first " arguments")
		if (name in formats) {
			if (formats[name] != text)
				report(file, line, "marker " name " has format \"" text \
				       "\" here, \"" formats[name] "\" at " where[name])
		} else {
			formats[name] = text
			where[name] = file ":" line
		}
	}

	# Splits the text of a call between its parentheses at top-level commas.
	function split_args(text, args,    n, depth, i, c, cur, q) {
		n = 0
		depth = 0
		q = ""
		cur = ""
		for (i = 1; i <= length(text); i++) {
			c = substr(text, i, 1)
			if (q != "") {
				cur = cur c
				if (c == "\\") {
					cur = cur substr(text, ++i, 1)
				} else if (c == q)
					q = ""
				continue
			}
			if (c == "\"" || c == "\047")
				q = c
			else if (c == "(" || c == "[" || c == "{")
				depth++
			else if (c == ")" || c == "]" || c == "}")
				depth--
			else if (c == "," && depth == 0) {
				args[++n] = trim(cur)
				cur = ""
				continue
			}
			cur = cur c
		}
		if (trim(cur) != "" || n)
			args[++n] = trim(cur)
		return n
	}

	function trim(s) {
		gsub(/^[ \t\n]+|[ \t\n]+$/, "", s)
		gsub(/[ \t\n]+/, " ", s)
		return s
	}

	# The attributes of the function a line is in: from its header, or
	# from the path of an entry file.
	function attributes(file, header,    attr) {
		attr = ""
		if (file ~ /(^|\/)(arch\/[^\/]+\/entry|kernel\/entry)\//)
			attr = "entry"
		if (header ~ /(^|[^A-Za-z0-9_])noinstr([^A-Za-z0-9_]|$)/)
			attr = "noinstr"
		else if (header ~ /(^|[^A-Za-z0-9_])__(init|exit)([^A-Za-z0-9_]|$)/) {
			match(header, /__(init|exit)/)
			attr = substr(header, RSTART, RLENGTH)
		}
		return attr
	}

	$1 != curfile {
		curfile = $1
		depth = 0
		header = ""
		fn_attr = ""
		in_comment = 0
		in_define = 0
		pending = ""
	}

	# A hunk of a patch: its code is in the function diff named, if any.
	$3 == "H" {
		text = $0
		sub(/^[^\t]*\t[^\t]*\t[^\t]*\t/, "", text)
		depth = text != ""
		fn_attr = attributes($1, text)
		header = ""
		in_comment = 0
		pending = ""
		next
	}

	{
		file = $1
		line = $2
		added = $3
		text = $0
		sub(/^[^\t]*\t[^\t]*\t[^\t]*\t/, "", text)
		# Preprocessor lines, continued or not, define markers; they are not any.
		if (in_define || (text ~ /^[ \t]*#/ && pending == "")) {
			in_define = text ~ /\\$/
			next
		}
		for (i = 1; i <= length(text); i++) {
			c = substr(text, i, 1)
			if (in_comment) {
				if (c == "*" && substr(text, i + 1, 1) == "/") {
					in_comment = 0
					i++
				}
				continue
			}
			if (pending != "") {
				pending = pending c
				if (c == "\"" || c == "\047") {
					q = c
					for (i++; i <= length(text); i++) {
						c = substr(text, i, 1)
						pending = pending c
						if (c == "\\") {
							pending = pending substr(text, ++i, 1)
						} else if (c == q)
							break
					}
					continue
				}
				if (c == "(")
					pdepth++
				else if (c == ")" && --pdepth == 0) {
					inner = substr(pending, 1, length(pending) - 1)
					nargs = split_args(inner, args)
					if (padded)
						check_call(pkind, args, nargs, pfile, pline,
							   padded, pattr)
					pending = ""
				}
				continue
			}
			if (c == "/" && substr(text, i + 1, 1) == "*") {
				in_comment = 1
				i++
				continue
			}
			if (c == "/" && substr(text, i + 1, 1) == "/")
				break
			if (c == "\"" || c == "\047") {
				q = c
				for (i++; i <= length(text); i++) {
					c = substr(text, i, 1)
					if (c == "\\")
						i++
					else if (c == q)
						break
				}
				continue
			}
			rest = substr(text, i)
			prev = i > 1 ? substr(text, i - 1, 1) : " "
			if (prev !~ /[A-Za-z0-9_]/ &&
			    match(rest, /^(MARK_PRIVATE|_MARK|MARK|marker_enabled)[ \t]*\(/)) {
				pkind = substr(rest, 1, RLENGTH)
				sub(/[ \t]*\($/, "", pkind)
				pending = " "
				pdepth = 1
				pfile = file
				pline = line
				padded = added
				pattr = depth ? fn_attr : ""
				i += RLENGTH - 1
				continue
			}
			if (c == "{") {
				if (depth == 0)
					fn_attr = attributes(file, header)
				depth++
			} else if (c == "}") {
				if (depth > 0)
					depth--
				if (depth == 0)
					header = ""
			} else if (c == ";" && depth == 0) {
				header = ""
			} else if (depth == 0) {
				header = header c
			}
		}
		if (depth == 0)
			header = header " "
		if (pending != "")
			pending = pending " "
	}

	END { exit findings ? 1 : 0 }
	'
}

# The sections of an ELF file, one "NAME ADDR OFFSET SIZE" per line (hex).
sections()
{
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '{ print $1, $3, $4, $5 }'
}

# The patched sites of a module, one "SECTION OFFSET FILE_OFFSET" per line:
# the PC32 (PREL32 on arm64) relocations of the code fields (at offsets multiple of
# SITE_ENTRY_SIZE) of __marker_sites name a section and an offset.
module_sites()
{
	local at value sym sign addend name saddr soff ssize
	declare -A offsets

	while read -r name saddr soff ssize; do
		offsets[$name]=$(( 0x$soff ))
	done <<< "$2"
	readelf -rW "$1" | awk '
	/^Relocation section/ { in_sites = ($3 == "\047.rela__marker_sites\047") }
	in_sites && ($3 == "R_X86_64_PC32" || $3 == "R_AARCH64_PREL32") {
		print $1, $4, $5, $6, $7
	}' |
	while read -r at value sym sign addend; do
		[ $(( 0x$at % SITE_ENTRY_SIZE )) -eq 0 ] || continue
		[ "$sign" = "-" ] && addend="-0x$addend" || addend="0x$addend"
		off=$(( 0x$value + addend ))
		echo "$sym $off $(( ${offsets[$sym]:-0} + off ))"
	done
}

# The file offset and size of the table of vmlinux's sites, "OFFSET SIZE".
vmlinux_table()
{
	readelf -sW "$1" | awk '
	$8 == "__start___marker_sites" { start = $2 }
	$8 == "__stop___marker_sites" { stop = $2 }
	END { if (start != "") print start, stop }' | {
		read -r start stop || return 0
		start=$(( 0x$start ))
		while read -r name saddr soff ssize; do
			base=$(( 0x$saddr ))
			if [ "$base" -ne 0 ] && [ "$start" -ge "$base" ] &&
			   [ "$start" -lt $(( base + 0x$ssize )) ]; then
				echo $(( 0x$soff + start - base )) $(( 0x$stop - start )) $start
				break
			fi
		done <<< "$2"
	}
}

# The patched sites of vmlinux, one "SECTION OFFSET FILE_OFFSET" per line: each code
# field is the offset of the site from the field itself. Addresses are
# taken relative to the table, so that awk's doubles hold them exactly.
vmlinux_sites()
{
	local fileoff size table name saddr soff ssize texts=""

	table=$(vmlinux_table "$1" "$2") || return
	read -r fileoff size table <<< "$table"
	[ -n "$table" ] || return 0
	while read -r name saddr soff ssize; do
		case "$name" in
		*text*)
			texts+="$name $(( 0x$saddr - table )) $(( 0x$ssize ))"
			texts+=" $(( 0x$soff ))"$'\n'
			;;
		esac
	done <<< "$2"
	od -An -v -t d4 -j "$fileoff" -N "$size" "$1" |
	awk -v texts="$texts" -v entry="$SITE_ENTRY_SIZE" '
	BEGIN {
		n = split(texts, lines, "\n")
		for (i = 1; i <= n; i++)
			if (split(lines[i], f, " ") == 4) {
				name[++secs] = f[1]; start[secs] = f[2]; len[secs] = f[3]
				off[secs] = f[4]
			}
	}
	{
		for (i = 1; i <= NF; i++) {
			field += 4
			if ((field - 4) % entry || $i == 0)
				continue
			site = field - 4 + $i
			for (s = 1; s <= secs; s++)
				if (site >= start[s] && site < start[s] + len[s]) {
					print name[s], site - start[s], off[s] + site - start[s]
					break
				}
		}
	}'
}

# Reads "SECTION OFFSET FILE_OFFSET" lines, adds the 12 bytes at FILE_OFFSET.
site_bytes()
{
	perl -e 'open(my $f, "<", $ARGV[0]) or die "$ARGV[0]: $!\n"; binmode($f);
		while (<STDIN>) {
			my ($sec, $off, $pos) = split;
			next unless defined $pos;
			seek($f, $pos, 0); read($f, my $b, 12);
			my @hex = map { sprintf("%02x", $_) } unpack("C*", $b);
			print "$sec $off ", join(" ", @hex), "\n";
		}' "$1"
}

# binary_sites FILE: the patched sites of FILE and their bytes, one
# "SECTION OFFSET BYTES" per line. Fails if FILE is not ELF (readelf says so).
binary_sites()
{
	local kind secs sites

	kind=$(readelf -hW "$1" | awk '$1 == "Type:" { print $2 }') || return
	secs=$(sections "$1") || return
	if [ "$kind" = REL ]; then
		sites=$(module_sites "$1" "$secs")
	else
		sites=$(vmlinux_sites "$1" "$secs")
	fi || return
	echo "$sites" | site_bytes "$1"
}

# What a site or call must hold on the machine of an ELF file (readelf's
# name for it), as a message; empty for a machine without patched sites.
site_rule()
{
	case "$1" in
	*X86-64*) echo "not 66 90 83 fc 00 72|0f 82, nor a call e8" ;;
	AArch64) echo "not nop, nor a bl" ;;
	esac
}

# site_ok MACHINE B0 B1 ... B11: the 12 bytes at a site or call are as built.
site_ok()
{
	local machine=$1

	shift
	case "$machine" in
	*X86-64*)
		case "$*" in
		"66 90 83 fc 00 72 "*|"66 90 83 fc 00 0f 82 "*|"e8 "*) return 0 ;;
		esac
		;;
	AArch64)
		# bl: the top 6 bits 100101
		[ $(( 0x$4 & 0xfc )) -eq $(( 0x94 )) ] && return 0
		[ "$1 $2 $3 $4" = "1f 20 03 d5" ] && return 0
		;;
	esac
	return 1
}

# check_binary FILE...: every patched site holds the documented bytes.
check_binary()
{
	local f sites sec off bytes machine findings=0

	need readelf od awk sed perl
	for f in "$@"; do
		if [ ! -r "$f" ] || [ -d "$f" ] || ! sites=$(binary_sites "$f"); then
			unreadable "$f"
			findings=1
			continue
		fi
		machine=$(readelf -hW "$f" | sed -n 's/^ *Machine: *//p')
		while read -r sec off bytes; do
			[ -n "$sec" ] || continue
			[ -n "$VERBOSE" ] &&
				printf '%s: %s+0x%x: %s\n' "$f" "$sec" "$off" "$bytes" >&2
			# shellcheck disable=SC2086 # one argument per byte
			site_ok "$machine" $bytes && continue
			printf '%s: %s+0x%x: site holds %s, %s\n' "$f" "$sec" "$off" "$bytes" \
			       "$(site_rule "$machine")"
			findings=1
		done <<< "$sites"
	done
	return $findings
}

[ $# -gt 0 ] || usage
case "$1" in
-h|--help)
	usage
	;;
--binary)
	shift
	if [ "$1" = "-v" ]; then
		VERBOSE=1
		shift
	fi
	[ $# -gt 0 ] || usage
	for f in "$@"; do
		if [ "$f" = - ]; then
			echo "checkpatch-markers: --binary reads ELF files," \
			     "not standard input (-)" >&2
			exit $EXIT_ERROR
		fi
	done
	check_binary "$@"
	;;
*)
	need awk
	check_sources "$@"
	;;
esac
