// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel markers: a marker's format as typed fields, for its trace event
 * and for tracers that record the arguments rather than format them.
 */

#include <linux/export.h>
#include <linux/string.h>

#include "marker_internal.h"

/* Whether @name is taken by one of the first @nr fields of @mf. */
static bool marker_field_taken(const struct marker_format *mf, unsigned int nr,
			       const char *name)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(mf->field[i].name, name))
			return true;
	return false;
}

/*
 * Names the field @nr of @mf after the last word of [@start, @end), the
 * text before its conversion, or "argN". Returns false on a clash of names
 * that even "argN" cannot avoid.
 */
static bool marker_field_name(struct marker_format *mf, unsigned int nr,
			      const char *start, const char *end)
{
	struct marker_field *f = &mf->field[nr];
	const char *word;
	size_t len;

	while (end > start && !marker_ident_char(end[-1]))
		end--;
	for (word = end; word > start && marker_ident_char(word[-1]); word--)
		;
	len = end - word;
	if (len && len < MARKER_FIELD_NAME_MAX && !isdigit(*word) &&
	    strncmp(word, "common_", 7) && strncmp(word, "__", 2)) {
		memcpy(f->name, word, len);
		f->name[len] = '\0';
		if (!marker_field_taken(mf, nr, f->name))
			return true;
	}
	snprintf(f->name, sizeof(f->name), "arg%u", nr);
	return !marker_field_taken(mf, nr, f->name);
}

/* The type of the conversion at @p (past flags, width and precision). */
static int marker_conv_type(const char **p, const char **error)
{
	const char *c = *p;
	int type = MARKER_FIELD_INT;

	if (c[0] == 'l' && c[1] == 'l') {
		c += 2;
		type = MARKER_FIELD_S64;
	} else if (c[0] == 'l' || c[0] == 'z') {
		c++;
		type = MARKER_FIELD_LONG;
	} else if (c[0] == 'h') {
		/* A short or a char travels as an int: printing narrows it. */
		c += c[1] == 'h' ? 2 : 1;
	} else if (c[0] && strchr("jtLq", c[0])) {
		*error = "length modifier not supported";
		return -EINVAL;
	}
	switch (*c) {
	case 'd':
	case 'i':
		break;
	case 'u':
	case 'x':
	case 'X':
	case 'o':
		/* The unsigned type follows each signed one. */
		type++;
		break;
	case 'c':
	case 's':
	case 'p':
		if (c != *p) {
			*error = "length modifier on %c, %s or %p";
			return -EINVAL;
		}
		if (*c == 'c')
			type = MARKER_FIELD_CHAR;
		else if (*c == 's')
			type = MARKER_FIELD_STR;
		else
			type = MARKER_FIELD_PTR;
		break;
	default:
		*error = "conversion not supported";
		return -EINVAL;
	}
	c++;
	if (type == MARKER_FIELD_PTR && marker_ident_char(*c)) {
		/* Only extensions that print the value, never what it points to. */
		if (!strchr("SsBxK", *c)) {
			*error = "%p extension reads what the pointer points to";
			return -EINVAL;
		}
		c += *c == 'S' && c[1] == 'R' ? 2 : 1;
	}
	*p = c;
	return type;
}

/**
 * marker_format_parse() - the typed arguments of a marker's format
 * @format: the format
 * @mf: where to store them
 *
 * Turns each conversion of @format into a field: a type from the
 * conversion (see &enum marker_field_type) and a name from the word before
 * it (see &struct marker_field). Flags, a width and a precision are taken
 * ("%-8lx", "%.16s"); "%%" is text; %hd and %hhu are ints. Refused, with
 * @mf->error and @mf->error_pos set: '*' as a width or precision, the
 * length modifiers j, t, L and q, %n and floating point, and the %p
 * extensions that read memory through the pointer (%pI4, %pM, %pd, ...),
 * which would read it when the trace is read rather than when the site ran.
 *
 * Return: 0; -EINVAL for a refused format; -E2BIG for more than
 * MARKER_MAX_ARGS conversions.
 */
int marker_format_parse(const char *format, struct marker_format *mf)
{
	const char *p = format, *text = format;

	memset(mf, 0, sizeof(*mf));
	while ((p = strchr(p, '%'))) {
		const char *conv = p++;
		struct marker_field *f;
		int type;

		if (*p == '%') {
			p++;
			continue;
		}
		p += strspn(p, "-+ #0");
		p += strspn(p, "0123456789");
		if (*p == '.')
			p += 1 + strspn(p + 1, "0123456789");
		if (*p == '*') {
			mf->error = "'*' width or precision";
			goto refuse;
		}
		type = marker_conv_type(&p, &mf->error);
		if (type < 0)
			goto refuse;
		if (mf->nr == MARKER_MAX_ARGS) {
			mf->error = "more conversions than MARKER_MAX_ARGS";
			mf->error_pos = conv - format;
			mf->nr = 0;
			return -E2BIG;
		}
		if (p - conv >= MARKER_CONV_MAX) {
			mf->error = "conversion too long";
			goto refuse;
		}
		f = &mf->field[mf->nr];
		f->type = type;
		f->conv = conv - format;
		f->conv_len = p - conv;
		if (!marker_field_name(mf, mf->nr, text, conv)) {
			mf->error = "field names clash";
			goto refuse;
		}
		mf->nr++;
		text = p;
		continue;
refuse:
		mf->error_pos = conv - format;
		mf->nr = 0;
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(marker_format_parse);
