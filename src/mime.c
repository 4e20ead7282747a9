/* mime.c - Content-Type from the file name's suffix. */
#include <stddef.h>
#include <string.h>

#include "mrhttpd.h"

/*
 * The tables hold characters and offsets, not pointers: a position-
 * independent binary needs a relocation for every pointer, and room for
 * it in the file, at start-up and in the memory made read-only after.
 * The type names are one block of strings, each member exactly its size.
 */
#define TYPE_NAMES(X) \
	X(T_APPLICATION_X_7Z_COMPRESSED, "application/x-7z-compressed") \
	X(T_IMAGE_AVIF, "image/avif") \
	X(T_APPLICATION_OCTET_STREAM, "application/octet-stream") \
	X(T_IMAGE_BMP, "image/bmp") \
	X(T_TEXT_CSS, "text/css") \
	X(T_TEXT_CSV, "text/csv") \
	X(T_IMAGE_GIF, "image/gif") \
	X(T_APPLICATION_GZIP, "application/gzip") \
	X(T_TEXT_HTML, "text/html") \
	X(T_IMAGE_X_ICON, "image/x-icon") \
	X(T_IMAGE_JPEG, "image/jpeg") \
	X(T_TEXT_JAVASCRIPT, "text/javascript") \
	X(T_APPLICATION_JSON, "application/json") \
	X(T_AUDIO_MP4, "audio/mp4") \
	X(T_APPLICATION_MANIFEST_JSON, "application/manifest+json") \
	X(T_TEXT_MARKDOWN, "text/markdown") \
	X(T_AUDIO_MPEG, "audio/mpeg") \
	X(T_VIDEO_MP4, "video/mp4") \
	X(T_AUDIO_OGG, "audio/ogg") \
	X(T_VIDEO_OGG, "video/ogg") \
	X(T_FONT_OTF, "font/otf") \
	X(T_APPLICATION_PDF, "application/pdf") \
	X(T_IMAGE_PNG, "image/png") \
	X(T_IMAGE_SVG_XML, "image/svg+xml") \
	X(T_APPLICATION_X_TAR, "application/x-tar") \
	X(T_FONT_TTF, "font/ttf") \
	X(T_TEXT_PLAIN, "text/plain") \
	X(T_APPLICATION_WASM, "application/wasm") \
	X(T_AUDIO_WAV, "audio/wav") \
	X(T_VIDEO_WEBM, "video/webm") \
	X(T_IMAGE_WEBP, "image/webp") \
	X(T_FONT_WOFF, "font/woff") \
	X(T_FONT_WOFF2, "font/woff2") \
	X(T_APPLICATION_XHTML_XML, "application/xhtml+xml") \
	X(T_APPLICATION_XML, "application/xml") \
	X(T_APPLICATION_XSLT_XML, "application/xslt+xml") \
	X(T_APPLICATION_ZIP, "application/zip")

struct type_text {
#define X(id, s)	char id[sizeof(s)];
	TYPE_NAMES(X)
#undef X
};
static const struct type_text type_text = {
#define X(id, s)	s,
	TYPE_NAMES(X)
#undef X
};
#define T(id)		offsetof(struct type_text, id)

/* Sorted by suffix (lower case) for the binary search below. */
static const struct {
	char		 ext[12];
	unsigned short	 type;	/* its name's offset in type_text */
} types[] = {
	{ "7z",	T(T_APPLICATION_X_7Z_COMPRESSED) },
	{ "avif", T(T_IMAGE_AVIF) },
	{ "bin",	T(T_APPLICATION_OCTET_STREAM) },
	{ "bmp",	T(T_IMAGE_BMP) },
	{ "css",	T(T_TEXT_CSS) },
	{ "csv",	T(T_TEXT_CSV) },
	{ "gif",	T(T_IMAGE_GIF) },
	{ "gz",	T(T_APPLICATION_GZIP) },
	{ "htm",	T(T_TEXT_HTML) },
	{ "html", T(T_TEXT_HTML) },
	{ "ico",	T(T_IMAGE_X_ICON) },
	{ "jpeg", T(T_IMAGE_JPEG) },
	{ "jpg",	T(T_IMAGE_JPEG) },
	{ "js",	T(T_TEXT_JAVASCRIPT) },
	{ "json", T(T_APPLICATION_JSON) },
	{ "m4a",	T(T_AUDIO_MP4) },
	{ "manifest", T(T_APPLICATION_MANIFEST_JSON) },
	{ "md",	T(T_TEXT_MARKDOWN) },
	{ "mjs",	T(T_TEXT_JAVASCRIPT) },
	{ "mp3",	T(T_AUDIO_MPEG) },
	{ "mp4",	T(T_VIDEO_MP4) },
	{ "oga",	T(T_AUDIO_OGG) },
	{ "ogg",	T(T_AUDIO_OGG) },
	{ "ogv",	T(T_VIDEO_OGG) },
	{ "otf",	T(T_FONT_OTF) },
	{ "pdf",	T(T_APPLICATION_PDF) },
	{ "png",	T(T_IMAGE_PNG) },
	{ "svg",	T(T_IMAGE_SVG_XML) },
	{ "tar",	T(T_APPLICATION_X_TAR) },
	{ "ttf",	T(T_FONT_TTF) },
	{ "txt",	T(T_TEXT_PLAIN) },
	{ "wasm", T(T_APPLICATION_WASM) },
	{ "wav",	T(T_AUDIO_WAV) },
	{ "webm", T(T_VIDEO_WEBM) },
	{ "webmanifest", T(T_APPLICATION_MANIFEST_JSON) },
	{ "webp", T(T_IMAGE_WEBP) },
	{ "woff", T(T_FONT_WOFF) },
	{ "woff2", T(T_FONT_WOFF2) },
	{ "xhtml", T(T_APPLICATION_XHTML_XML) },
	{ "xml",	T(T_APPLICATION_XML) },
	{ "xsl",	T(T_APPLICATION_XML) },
	{ "xslt", T(T_APPLICATION_XSLT_XML) },
	{ "zip",	T(T_APPLICATION_ZIP) },
};

/* The name of the type at offset off of type_text. */
static const char *
type_name(unsigned off)
{
	return (const char *)&type_text + off;
}

const char *
mime_lookup(const char *name, size_t len)
{
	char ext[sizeof(types[0].ext)];
	size_t i, n;
	int lo = 0, hi = (int)(sizeof(types) / sizeof(types[0])) - 1, mid, c;

	for (i = len; i > 0 && name[i - 1] != '.'; i--)
		if (name[i - 1] == '/')
			return NULL;
	if (i == 0 || (n = len - i) == 0 || n >= sizeof(ext))
		return NULL;
	for (c = 0; (size_t)c < n; c++) {
		ext[c] = name[i + c];
		if (ext[c] >= 'A' && ext[c] <= 'Z')
			ext[c] |= 0x20;
	}
	ext[n] = '\0';
	while (lo <= hi) {
		mid = (lo + hi) / 2;
		if ((c = strcmp(ext, types[mid].ext)) == 0)
			return type_name(types[mid].type);
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return NULL;
}
