/* Building Redfish documents and answers the way iDRAC9 writes them. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

#define CONTENT_TYPE "application/json;odata.metadata=minimal;charset=utf-8"

static char *vpath(const char *fmt, va_list ap)
{
	struct br_buf b;

	br_buf_init(&b, 0);
	br_buf_vaddf(&b, fmt, ap);
	return br_buf_detach(&b);
}

/* "#ComputerSystem.v1_20_0.ComputerSystem" → "/redfish/v1/$metadata#ComputerSystem.ComputerSystem" */
static json_t *context_of(const char *type)
{
	const char *first_dot = strchr(type, '.'), *last_dot = strrchr(type, '.');
	char *ctx;
	json_t *s;

	if (!first_dot)
		return json_string("/redfish/v1/$metadata");
	ctx = br_xasprintf("/redfish/v1/$metadata#%.*s%s", (int)(first_dot - type - 1), type + 1, last_dot);
	s = json_string(ctx);
	free(ctx);
	return s;
}

json_t *sim_res(const char *type, const char *id, const char *name, const char *path_fmt, ...)
{
	va_list ap;
	char *path;
	json_t *o = json_object();

	va_start(ap, path_fmt);
	path = vpath(path_fmt, ap);
	va_end(ap);
	json_object_set_new(o, "@odata.context", context_of(type));
	json_object_set_new(o, "@odata.id", json_string(path));
	json_object_set_new(o, "@odata.type", json_string(type));
	json_object_set_new(o, "Id", json_string(id));
	json_object_set_new(o, "Name", json_string(name));
	free(path);
	return o;
}

json_t *sim_link(const char *path_fmt, ...)
{
	va_list ap;
	char *path;
	json_t *o;

	va_start(ap, path_fmt);
	path = vpath(path_fmt, ap);
	va_end(ap);
	o = json_pack("{s:s}", "@odata.id", path);
	free(path);
	return o;
}

json_t *sim_coll(const char *type, const char *name, const char *path)
{
	json_t *o = json_object();

	json_object_set_new(o, "@odata.context", context_of(type));
	json_object_set_new(o, "@odata.id", json_string(path));
	json_object_set_new(o, "@odata.type", json_string(type));
	json_object_set_new(o, "Description", json_string(name));
	json_object_set_new(o, "Name", json_string(name));
	json_object_set_new(o, "Members", json_array());
	json_object_set_new(o, "Members@odata.count", json_integer(0));
	return o;
}

void sim_coll_add(json_t *coll, const char *path_fmt, ...)
{
	json_t *members = json_object_get(coll, "Members");
	va_list ap;
	char *path;

	va_start(ap, path_fmt);
	path = vpath(path_fmt, ap);
	va_end(ap);
	json_array_append_new(members, json_pack("{s:s}", "@odata.id", path));
	json_object_set_new(coll, "Members@odata.count", json_integer((json_int_t)json_array_size(members)));
	free(path);
}

json_t *sim_status(const char *health)
{
	return json_pack("{s:s, s:s, s:s}", "Health", health, "HealthRollup", health, "State", "Enabled");
}

json_t *sim_msg(const char *id, const char *severity, const char *message, const char *resolution)
{
	return json_pack("{s:s, s:[], s:i, s:s, s:[], s:i, s:s, s:s}", "Message", message, "MessageArgs",
			 "MessageArgs@odata.count", 0, "MessageId", id, "RelatedProperties",
			 "RelatedProperties@odata.count", 0, "Resolution", resolution, "Severity", severity);
}

uint64_t sim_hash(const char *data, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)data[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void sim_etag_of(const char *data, size_t len, char out[SIM_ETAG_LEN])
{
	snprintf(out, SIM_ETAG_LEN, "\"%016llx\"", (unsigned long long)sim_hash(data, len));
}

void sim_reply_text(struct sim_response *r, int status, char *text, size_t len, const char *etag)
{
	free(r->body);
	r->status = status;
	r->body = text;
	r->body_len = len;
	r->content_type = CONTENT_TYPE;
	sim_response_header(r, "OData-Version", "4.0");
	sim_response_header(r, "Cache-Control", "no-cache");
	sim_response_header(r, "Server", "Apache");
	sim_response_header(r, "ETag", etag);
}

void sim_reply(struct sim_ctx *c, int status, json_t *doc)
{
	char *text = json_dumps(doc, JSON_COMPACT);

	sim_etag_of(text, strlen(text), c->etag);
	if (c->etag_in_body && json_is_object(doc) && status < 300) {
		json_object_set_new(doc, "@odata.etag", json_string(c->etag));
		free(text);
		text = json_dumps(doc, JSON_COMPACT);
	}
	json_decref(doc);
	sim_reply_text(c->resp, status, text, strlen(text), c->etag);
}

void sim_reply_error(struct sim_ctx *c, int status, json_t *msg, json_t *msg2)
{
	json_t *info = json_array();

	json_array_append_new(info, msg);
	if (msg2)
		json_array_append_new(info, msg2);
	sim_reply(c, status,
		  json_pack("{s:{s:o, s:s, s:s}}", "error", "@Message.ExtendedInfo", info, "code",
			    SIM_BASE "GeneralError", "message",
			    "A general error has occurred. See ExtendedInfo for more information"));
}

void sim_reply_not_found(struct sim_ctx *c)
{
	char *m1 = br_xasprintf(
	    "Unable to complete the operation because the resource %s entered in not found.", c->req->path);
	char *m2 =
	    br_xasprintf("The requested resource of type Resource named '%s' was not found.", c->req->path);

	sim_reply_error(
	    c, 404,
	    sim_msg(SIM_MSG "SYS403", "Critical", m1,
		    "Enter the correct resource and retry the operation. For information about valid "
		    "resource, see the Redfish Users Guide available on the support site."),
	    sim_msg(SIM_BASE "ResourceNotFound", "Critical", m2,
		    "Provide a valid resource identifier and resubmit the request."));
	free(m1);
	free(m2);
}

void sim_mac_upper(const char *mac, char out[18])
{
	for (int i = 0; i < 17; i++)
		out[i] = (char)(mac[i] >= 'a' && mac[i] <= 'f' ? mac[i] - 'a' + 'A' : mac[i]);
	out[17] = '\0';
}

const char *sim_nic_product(int k)
{
	return k < SIM_FABRIC_NICS ? "Mellanox ConnectX-7 Single Port NDR400 OSFP Adapter"
				   : "Broadcom Gigabit Ethernet BCM5720";
}
