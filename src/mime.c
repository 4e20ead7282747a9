/* mime.c - Content-Type from the file name's suffix. */
#include <string.h>

#include "mrhttpd.h"

/* Sorted by suffix (lower case) for the binary search below. */
static const struct {
	const char	*ext;
	const char	*type;
} types[] = {
	{ "7z",		"application/x-7z-compressed" },
	{ "avif",	"image/avif" },
	{ "bin",	"application/octet-stream" },
	{ "bmp",	"image/bmp" },
	{ "css",	"text/css" },
	{ "csv",	"text/csv" },
	{ "gif",	"image/gif" },
	{ "gz",		"application/gzip" },
	{ "htm",	"text/html" },
	{ "html",	"text/html" },
	{ "ico",	"image/x-icon" },
	{ "jpeg",	"image/jpeg" },
	{ "jpg",	"image/jpeg" },
	{ "js",		"text/javascript" },
	{ "json",	"application/json" },
	{ "m4a",	"audio/mp4" },
	{ "manifest",	"application/manifest+json" },
	{ "md",		"text/markdown" },
	{ "mjs",	"text/javascript" },
	{ "mp3",	"audio/mpeg" },
	{ "mp4",	"video/mp4" },
	{ "oga",	"audio/ogg" },
	{ "ogg",	"audio/ogg" },
	{ "ogv",	"video/ogg" },
	{ "otf",	"font/otf" },
	{ "pdf",	"application/pdf" },
	{ "png",	"image/png" },
	{ "svg",	"image/svg+xml" },
	{ "tar",	"application/x-tar" },
	{ "ttf",	"font/ttf" },
	{ "txt",	"text/plain" },
	{ "wasm",	"application/wasm" },
	{ "wav",	"audio/wav" },
	{ "webm",	"video/webm" },
	{ "webmanifest", "application/manifest+json" },
	{ "webp",	"image/webp" },
	{ "woff",	"font/woff" },
	{ "woff2",	"font/woff2" },
	{ "xhtml",	"application/xhtml+xml" },
	{ "xml",	"application/xml" },
	{ "xsl",	"application/xml" },
	{ "xslt",	"application/xslt+xml" },
	{ "zip",	"application/zip" },
};

const char *
mime_lookup(const char *name, size_t len)
{
	char ext[16];
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
			return types[mid].type;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return NULL;
}
