/* What the profile parser's files share (parse.c: the INI plumbing, bios,
 * firmware and boot-disk files; hardware.c: hardware.conf). */
#ifndef BRINGUP_PROF_PRIVATE_H
#define BRINGUP_PROF_PRIVATE_H

#include "profile.h"

struct prof_parse {
	const char *file;
	enum prof_file kind;
	const char *next; /* unread text */
	int line;	  /* lines handed to inih so far */
	int err_line;	  /* first problem this file found itself, 0: none */
	char err_msg[256];
	struct prof_profile *p;
	struct br_strlist seen; /* "section.name" set so far, for "set twice" */
};

/* Record the first problem of the file, on the current line: "field:
 * message", or the message alone when field is NULL. Returns 0, which tells
 * inih the line is bad. */
int prof_problem(struct prof_parse *ps, const char *field, const char *fmt, ...) BR_PRINTF(3, 4);

/* Whether section.name was set before in this file; records it if not. */
int prof_seen_twice(struct prof_parse *ps, const char *section, const char *name);

/* Letters and digits, plus the characters of extra; not empty. */
int prof_valid_chars(const char *s, const char *extra);

/* What a firmware.conf component may be written with beside letters and
 * digits: an FQDD (NIC.Slot.31-1-1) or a shell pattern of them. */
#define PROF_FW_COMPONENT_CHARS ".-_:*?[]"

/* hardware.conf: the sections it allows, and one entry of it. */
int prof_hw_section_known(const char *section, size_t len);
extern const char prof_hw_sections[];
int prof_hw_entry(struct prof_parse *ps, const char *section, const char *name, const char *value);

/* firmware-images.conf (catalogue.c): its sections ([update], [image
 * NAME]), one entry, the checks once the file is read (every image
 * complete, relative files made the profile directory's), and freeing. */
int prof_images_section_known(const char *section, size_t len);
int prof_images_entry(struct prof_parse *ps, const char *section, const char *name, const char *value);
int prof_images_finish(const char *file, struct prof_profile *p, struct br_err *err);
void prof_images_release(struct prof_profile *p);

#endif
