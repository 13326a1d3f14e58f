// SPDX-License-Identifier: GPL-2.0
/* Build IDs as hex strings, made once per ID. */
#include <stdio.h>
#include <stdlib.h>

#include "lib/stack/store.h"
#include "lib/sym/build_id_hex.h"

/* A GNU build ID is 20 bytes (SHA-1); longer notes are cut, as nothing matches past that. */
#define BUILD_ID_MAX 64

struct build_id_hex {
	struct stack_store *ids; /* the ID's bytes -> its hex string */
};

struct build_id_hex *build_id_hex__new(void)
{
	struct build_id_hex *c = calloc(1, sizeof(*c));

	if (c && !(c->ids = stack_store__new())) {
		free(c);
		c = NULL;
	}
	return c;
}

const char *build_id_hex__get(struct build_id_hex *c, const uint8_t *id, size_t len)
{
	struct stack_entry *e;
	char *hex;
	size_t i;

	if (!c || !id || !len)
		return NULL;
	if (len > BUILD_ID_MAX)
		len = BUILD_ID_MAX;
	e = stack_store__add(c->ids, id, len, 0);
	if (!e)
		return NULL;
	if (e->data)
		return e->data;
	hex = malloc(2 * len + 1);
	if (!hex)
		return NULL;
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	e->data = hex;
	return hex;
}

void build_id_hex__free(struct build_id_hex *c)
{
	struct stack_entry **v;
	size_t i, n;

	if (!c)
		return;
	v = stack_store__entries(c->ids);
	n = stack_store__len(c->ids);
	for (i = 0; v && i < n; i++)
		free(v[i]->data);
	free(v);
	stack_store__free(c->ids);
	free(c);
}
