/*
 * darknet_refdump: test-only helper that drives the Debian package's
 * libdarknet (/usr/lib/darknet/libdarknet.so) to produce reference data
 * for mdfi's parity tests.  It is never part of the mdfi engine itself.
 *
 *   darknet_refdump forward   CFG WEIGHTS INPUT.npy OUTDIR
 *   darknet_refdump letterbox INPUT_IMAGE.npy W H OUT.npy
 *   darknet_refdump resize    INPUT_IMAGE.npy W H OUT.npy
 *   darknet_refdump loadimage IMAGE_FILE OUT.npy
 *
 * All arrays are NumPy .npy files (format 1.0 written; 1.0/2.0/3.0 read),
 * dtype '<f4', C order, shape (C,H,W) unless stated otherwise.
 *
 * Exit status: 0 on success, 1 on any failure (with one line on stderr
 * starting "darknet_refdump: error: "), 2 on bad usage.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700

#include <darknet.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define PROG "darknet_refdump"
#define NPY_MAX_DIMS 3

/* ------------------------------------------------------------------ */
/* diagnostics                                                          */
/* ------------------------------------------------------------------ */

#if defined(__GNUC__)
#define REFDUMP_NORETURN __attribute__((noreturn, format(printf, 1, 2)))
#define REFDUMP_PRINTF __attribute__((format(printf, 1, 2)))
#else
#define REFDUMP_NORETURN
#define REFDUMP_PRINTF
#endif

static void die(const char *fmt, ...) REFDUMP_NORETURN;
static void warn(const char *fmt, ...) REFDUMP_PRINTF;

static void die(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs(PROG ": error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

#include "candidates.h"

static void warn(const char *fmt, ...)
{
    va_list ap;
    fputs(PROG ": warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory (%zu bytes)", n);
    return p;
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* Refuse paths that do not name a readable regular file: libdarknet
 * calls exit(0) (success!) when it cannot open a cfg or weights file. */
static void require_readable_file(const char *what, const char *path)
{
    struct stat st;
    FILE *f;
    if (stat(path, &st) != 0) die("%s '%s': %s", what, path, strerror(errno));
    if (!S_ISREG(st.st_mode)) die("%s '%s' is not a regular file", what, path);
    f = fopen(path, "rb");
    if (!f) die("%s '%s': %s", what, path, strerror(errno));
    fclose(f);
}

static int parse_dim_arg(const char *what, const char *s)
{
    char *end = NULL;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0') die("%s '%s' is not an integer", what, s);
    if (v < 2 || v > 65536) die("%s %ld out of range (2..65536)", what, v);
    return (int)v;
}

/* ------------------------------------------------------------------ */
/* minimal .npy reader / writer                                         */
/* ------------------------------------------------------------------ */

typedef struct {
    int ndim;
    long dims[NPY_MAX_DIMS];
    size_t count;
    float *data;
} npy_array;

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
    return p;
}

/* Returns a pointer just after "'key'<ws>:<ws>" inside the header dict. */
static const char *npy_find_key(const char *hdr, const char *end, const char *key,
                                const char *path)
{
    size_t klen = strlen(key);
    const char *p;
    for (p = hdr; p + klen + 2 <= end; ++p) {
        if ((*p == '\'' || *p == '"') && p[klen + 1] == *p &&
            memcmp(p + 1, key, klen) == 0) {
            p = skip_ws(p + klen + 2, end);
            if (p >= end || *p != ':') break;
            return skip_ws(p + 1, end);
        }
    }
    die("'%s': npy header has no usable '%s' entry", path, key);
}

static void npy_read(const char *path, npy_array *arr)
{
    FILE *f;
    unsigned char pre[12];
    size_t hlen, prelen, got, want;
    char *hdr;
    const char *p, *end, *q;
    char descr[32];
    size_t dl = 0;
    int fortran = 0;
    struct stat st;
    long long payload;

    memset(arr, 0, sizeof *arr);
    require_readable_file("input npy", path);
    f = fopen(path, "rb");
    if (!f) die("cannot open '%s': %s", path, strerror(errno));
    if (fstat(fileno(f), &st) != 0) die("cannot stat '%s': %s", path, strerror(errno));

    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0)
        die("'%s' is not a .npy file (bad magic)", path);
    if (pre[6] == 1) {
        hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
        prelen = 10;
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 10, 1, 2, f) != 2) die("'%s': truncated npy header", path);
        hlen = (size_t)pre[8] | ((size_t)pre[9] << 8) | ((size_t)pre[10] << 16) |
               ((size_t)pre[11] << 24);
        prelen = 12;
    } else {
        die("'%s': unsupported npy format version %d.%d", path, pre[6], pre[7]);
    }
    if (hlen == 0 || hlen > (1u << 20)) die("'%s': implausible npy header length %zu", path, hlen);
    hdr = (char *)xmalloc(hlen + 1);
    if (fread(hdr, 1, hlen, f) != hlen) die("'%s': truncated npy header", path);
    hdr[hlen] = '\0';
    end = hdr + hlen;

    /* descr */
    p = npy_find_key(hdr, end, "descr", path);
    if (p >= end || (*p != '\'' && *p != '"')) die("'%s': npy 'descr' is not a string", path);
    for (q = p + 1; q < end && *q != *p; ++q)
        if (dl + 1 < sizeof descr) descr[dl++] = *q;
    descr[dl] = '\0';
    if (strcmp(descr, "<f4") != 0)
        die("'%s': dtype '%s' unsupported (need '<f4', little-endian float32)", path, descr);

    /* fortran_order */
    p = npy_find_key(hdr, end, "fortran_order", path);
    if ((size_t)(end - p) >= 4 && memcmp(p, "True", 4) == 0) fortran = 1;
    else if ((size_t)(end - p) >= 5 && memcmp(p, "False", 5) == 0) fortran = 0;
    else die("'%s': npy 'fortran_order' is neither True nor False", path);

    /* shape */
    p = npy_find_key(hdr, end, "shape", path);
    if (p >= end || *p != '(') die("'%s': npy 'shape' is not a tuple", path);
    ++p;
    arr->ndim = 0;
    for (;;) {
        char *num_end;
        long v;
        p = skip_ws(p, end);
        if (p < end && *p == ')') break;
        if (p >= end || *p < '0' || *p > '9') die("'%s': malformed npy 'shape'", path);
        errno = 0;
        v = strtol(p, &num_end, 10);
        if (errno != 0 || v < 0) die("'%s': malformed npy 'shape'", path);
        if (arr->ndim >= NPY_MAX_DIMS)
            die("'%s': npy array has more than %d dimensions", path, NPY_MAX_DIMS);
        arr->dims[arr->ndim++] = v;
        p = skip_ws(num_end, end);
        if (p < end && *p == ',') ++p;
        else if (p < end && *p == ')') break;
        else die("'%s': malformed npy 'shape'", path);
    }
    if (arr->ndim == 0) die("'%s': 0-d npy arrays are not accepted (need 1-3 dims)", path);
    if (fortran && arr->ndim > 1) {
        int i, nontrivial = 0;
        for (i = 0; i < arr->ndim; ++i) nontrivial += arr->dims[i] > 1;
        if (nontrivial > 1) die("'%s': fortran_order arrays are not supported", path);
    }
    free(hdr);

    arr->count = 1;
    {
        int i;
        for (i = 0; i < arr->ndim; ++i) {
            if (arr->dims[i] != 0 && arr->count > (size_t)(SIZE_MAX / 8) / (size_t)arr->dims[i])
                die("'%s': npy shape too large", path);
            arr->count *= (size_t)arr->dims[i];
        }
    }
    want = arr->count * sizeof(float);
    payload = (long long)st.st_size - (long long)(prelen + hlen);
    if (payload != (long long)want)
        die("'%s': npy payload is %lld bytes but shape needs %zu", path, payload, want);
    arr->data = (float *)xmalloc(want);
    got = fread(arr->data, 1, want, f);
    if (got != want) die("'%s': short read (%zu of %zu bytes)", path, got, want);
    fclose(f);
}

static void npy_write(const char *path, const float *data, int ndim, const long *dims)
{
    char dict[256], shape[128];
    size_t count = 1, len, total, pad, hlen;
    int i, n;
    unsigned char pre[10];
    FILE *f;

    n = snprintf(shape, sizeof shape, "(");
    for (i = 0; i < ndim; ++i) {
        n += snprintf(shape + n, sizeof shape - (size_t)n, "%s%ld", i ? ", " : "", dims[i]);
        count *= (size_t)dims[i];
    }
    snprintf(shape + n, sizeof shape - (size_t)n, "%s)", ndim == 1 ? "," : "");
    len = (size_t)snprintf(dict, sizeof dict,
                           "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape);
    total = 10 + len + 1; /* preamble + dict + '\n' */
    pad = (64 - total % 64) % 64;
    hlen = len + pad + 1;

    f = fopen(path, "wb");
    if (!f) die("cannot create '%s': %s", path, strerror(errno));
    memcpy(pre, "\x93NUMPY", 6);
    pre[6] = 1;
    pre[7] = 0;
    pre[8] = (unsigned char)(hlen & 0xff);
    pre[9] = (unsigned char)((hlen >> 8) & 0xff);
    if (fwrite(pre, 1, 10, f) != 10 || fwrite(dict, 1, len, f) != len)
        die("write error on '%s': %s", path, strerror(errno));
    for (i = 0; i < (int)pad; ++i)
        if (fputc(' ', f) == EOF) die("write error on '%s': %s", path, strerror(errno));
    if (fputc('\n', f) == EOF) die("write error on '%s': %s", path, strerror(errno));
    if (count && fwrite(data, sizeof(float), count, f) != count)
        die("write error on '%s': %s", path, strerror(errno));
    if (fclose(f) != 0) die("write error on '%s': %s", path, strerror(errno));
}

static void npy_write_chw(const char *path, const float *data, int c, int h, int w)
{
    long dims[3];
    dims[0] = c;
    dims[1] = h;
    dims[2] = w;
    npy_write(path, data, 3, dims);
}

/* (C,H,W) or (H,W) -> darknet image (planar CHW, same memory layout). */
static image npy_to_image(const char *path)
{
    npy_array a;
    image im;
    long c, h, w;
    npy_read(path, &a);
    if (a.ndim == 3) {
        c = a.dims[0];
        h = a.dims[1];
        w = a.dims[2];
    } else if (a.ndim == 2) {
        c = 1;
        h = a.dims[0];
        w = a.dims[1];
    } else {
        die("'%s': image npy must have shape (C,H,W) or (H,W), got 1-D (%ld,)", path, a.dims[0]);
    }
    if (c < 1 || h < 1 || w < 1 || c > 65536 || h > 65536 || w > 65536)
        die("'%s': bad image shape (%ld, %ld, %ld)", path, c, h, w);
    if (c > 4 && w <= 4)
        warn("'%s' has shape (%ld, %ld, %ld): is it HWC instead of CHW?", path, c, h, w);
    im = make_image((int)w, (int)h, (int)c);
    if (!im.data) die("make_image(%ld, %ld, %ld) failed", w, h, c);
    memcpy(im.data, a.data, a.count * sizeof(float));
    free(a.data);
    return im;
}

/* ------------------------------------------------------------------ */
/* forward                                                              */
/* ------------------------------------------------------------------ */

static const char *layer_type_name(int t)
{
    static const char *names[] = {
        "CONVOLUTIONAL", "DECONVOLUTIONAL", "CONNECTED", "MAXPOOL", "SOFTMAX",
        "DETECTION", "DROPOUT", "CROP", "ROUTE", "COST", "NORMALIZATION",
        "AVGPOOL", "LOCAL", "SHORTCUT", "ACTIVE", "RNN", "GRU", "LSTM", "CRNN",
        "BATCHNORM", "NETWORK", "XNOR", "REGION", "YOLO", "ISEG", "REORG",
        "UPSAMPLE", "LOGXENT", "L2NORM", "BLANK"};
    if (t < 0 || t >= (int)(sizeof names / sizeof names[0])) return "?";
    return names[t];
}

static void mkdir_p(const char *dir)
{
    char *tmp = strdup(dir), *p;
    struct stat st;
    if (!tmp) die("out of memory");
    for (p = tmp + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            die("cannot create directory '%s': %s", tmp, strerror(errno));
        *p = '/';
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        die("cannot create directory '%s': %s", tmp, strerror(errno));
    if (stat(tmp, &st) != 0 || !S_ISDIR(st.st_mode)) die("'%s' is not a directory", tmp);
    free(tmp);
}

/* Check the weights file holds at least as many floats as libdarknet's
 * loader will fread() for this network: libdarknet does not check fread's
 * result, so a short file silently leaves random-initialised weights. */
static void check_weights_size(network *net, const char *path)
{
    FILE *f = fopen(path, "rb");
    int32_t hdr[3];
    struct stat st;
    long long header_bytes, need = 0;
    int i, unknown = -1;

    if (!f) die("weights '%s': %s", path, strerror(errno));
    if (fstat(fileno(f), &st) != 0) die("weights '%s': %s", path, strerror(errno));
    if (fread(hdr, sizeof(int32_t), 3, f) != 3) die("weights '%s': shorter than its header", path);
    fclose(f);
    /* major*10+minor >= 2 (and sane) -> 64-bit 'seen', else 32-bit */
    header_bytes = 12 + (((long long)hdr[0] * 10 + hdr[1] >= 2 && hdr[0] < 1000 && hdr[1] < 1000) ? 8 : 4);

    for (i = 0; i < net->n; ++i) {
        layer *l = &net->layers[i];
        if (l->dontload) continue;
        switch (l->type) {
        case CONVOLUTIONAL:
        case DECONVOLUTIONAL:
            if (l->numload) { unknown = i; break; }
            need += (long long)l->n + l->nweights;
            if (l->batch_normalize && !l->dontloadscales) need += 3LL * l->n;
            break;
        case CONNECTED:
            need += (long long)l->outputs + (long long)l->outputs * l->inputs;
            if (l->batch_normalize && !l->dontloadscales) need += 3LL * l->outputs;
            break;
        case BATCHNORM:
            need += 3LL * l->c;
            break;
        case LOCAL: case RNN: case GRU: case LSTM: case CRNN:
            unknown = i;
            break;
        default:
            break;
        }
    }
    if (unknown >= 0) {
        warn("layer %d (%s): weights-file size not checked for this layer type", unknown,
             layer_type_name(net->layers[unknown].type));
        return;
    }
    need = header_bytes + need * 4;
    if ((long long)st.st_size < need)
        die("weights '%s' is %lld bytes but the cfg needs %lld (header %lld + %lld floats)", path,
            (long long)st.st_size, need, header_bytes, (need - header_bytes) / 4);
    if ((long long)st.st_size > need)
        warn("weights '%s' is %lld bytes, cfg needs only %lld: trailing data ignored", path,
             (long long)st.st_size, need);
}

static int cmd_forward(char *cfg, char *weights, const char *input, const char *outdir)
{
    network *net;
    npy_array in;
    struct timespec t0, t1;
    double ms;
    char path[PATH_MAX];
    FILE *lt;
    int i, written = 0;
    long nonfinite_layers = 0;

    require_readable_file("cfg", cfg);
    require_readable_file("weights", weights);
    npy_read(input, &in); /* validate the input before the slow network load */
    mkdir_p(outdir);

    net = load_network(cfg, weights, 0);
    if (!net || net->n <= 0) die("load_network('%s') produced no layers", cfg);
    set_batch_network(net, 1);
    check_weights_size(net, weights);

    /* input shape check */
    if ((long long)net->c * net->h * net->w == net->inputs && net->inputs > 0) {
        int ok;
        if (in.ndim == 3)
            ok = in.dims[0] == net->c && in.dims[1] == net->h && in.dims[2] == net->w;
        else if (in.ndim == 2)
            ok = net->c == 1 && in.dims[0] == net->h && in.dims[1] == net->w;
        else
            ok = (long long)in.dims[0] == net->inputs;
        if (!ok) {
            if (in.ndim == 3)
                die("input '%s' has shape (%ld, %ld, %ld) but the network wants (%d, %d, %d)", input,
                    in.dims[0], in.dims[1], in.dims[2], net->c, net->h, net->w);
            die("input '%s' has %d-D shape with %zu values but the network wants (%d, %d, %d)",
                input, in.ndim, in.count, net->c, net->h, net->w);
        }
    } else if (in.ndim != 1 || (long long)in.count != net->inputs) {
        die("network has inputs=%d (c,h,w = %d,%d,%d): input '%s' must be 1-D of that length",
            net->inputs, net->c, net->h, net->w, input);
    }

    clock_gettime(CLOCK_MONOTONIC, &t0);
    network_predict(net, in.data);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;

    if ((size_t)snprintf(path, sizeof path, "%s/layers.txt", outdir) >= sizeof path)
        die("output path too long");
    lt = fopen(path, "w");
    if (!lt) die("cannot create '%s': %s", path, strerror(errno));

    for (i = 0; i < net->n; ++i) {
        layer *l = &net->layers[i];
        long dims[3];
        int j;
        if ((long long)l->out_c * l->out_h * l->out_w == l->outputs && l->outputs > 0) {
            dims[0] = l->out_c;
            dims[1] = l->out_h;
            dims[2] = l->out_w;
        } else {
            dims[0] = l->outputs;
            dims[1] = 1;
            dims[2] = 1;
        }
        fprintf(lt, "%d %d %ld %ld %ld\n", i, (int)l->type, dims[0], dims[1], dims[2]);
        for (j = 0; j < i; ++j)
            if (l->output && net->layers[j].output == l->output) {
                fprintf(stderr, PROG ": note: layer %d (%s) shares its output buffer with layer %d (%s)\n",
                        i, layer_type_name(l->type), j, layer_type_name(net->layers[j].type));
                break;
            }
        if (l->type == COST) continue; /* output not computed at inference */
        if (!l->output || l->outputs <= 0)
            die("layer %d (%s) has no output buffer", i, layer_type_name(l->type));
        {
            long k, bad = 0;
            for (k = 0; k < l->outputs; ++k)
                if (!isfinite(l->output[k])) ++bad;
            if (bad) {
                warn("layer %d (%s): %ld of %d output values are not finite", i,
                     layer_type_name(l->type), bad, l->outputs);
                ++nonfinite_layers;
            }
        }
        if ((size_t)snprintf(path, sizeof path, "%s/%03d.npy", outdir, i) >= sizeof path)
            die("output path too long");
        npy_write(path, l->output, 3, dims);
        ++written;
    }
    if (fclose(lt) != 0) die("write error on layers.txt in '%s'", outdir);

    printf("forward: %d layers, %d npy files written to %s, network_predict %.1f ms%s\n", net->n,
           written, outdir, ms, nonfinite_layers ? " (WARNING: non-finite outputs)" : "");
    free(in.data);
    free_network(net);
    return 0;
}

/* ------------------------------------------------------------------ */
/* image commands                                                       */
/* ------------------------------------------------------------------ */

static int cmd_resize(int letterbox, const char *input, const char *ws, const char *hs,
                      const char *out)
{
    int w = parse_dim_arg("W", ws), h = parse_dim_arg("H", hs);
    image im = npy_to_image(input), r;
    if (letterbox) {
        /* letterbox_image() scales the longer side to fit, then resizes to
         * the scaled size: refuse results that resize_image() cannot do
         * (a 1-pixel target divides by zero inside it). */
        int nw, nh;
        if ((float)w / (float)im.w < (float)h / (float)im.h) {
            nw = w;
            nh = (int)(((long long)im.h * w) / im.w);
        } else {
            nh = h;
            nw = (int)(((long long)im.w * h) / im.h);
        }
        if (nw == 1 || nh == 1)
            die("letterbox of %dx%d into %dx%d gives a degenerate %dx%d resize", im.w, im.h, w, h,
                nw, nh);
        r = letterbox_image(im, w, h);
    } else {
        r = resize_image(im, w, h);
    }
    if (!r.data || r.w != w || r.h != h || r.c != im.c)
        die("%s returned a %dx%dx%d image, expected %dx%dx%d",
            letterbox ? "letterbox_image" : "resize_image", r.c, r.h, r.w, im.c, h, w);
    npy_write_chw(out, r.data, r.c, r.h, r.w);
    free_image(im);
    free_image(r);
    return 0;
}

/* load_image_color() (OpenCV build) never fails: on a decode error it prints
 * "Cannot load image", runs system("echo FILE >> bad.list") in the current
 * directory with a fixed 256-byte buffer, and returns a blank 10x10 image.
 * So: call it through a short symlink from inside a private temp directory,
 * with stderr captured, and turn that message into a real error. */
static int cmd_loadimage(const char *file, const char *out)
{
    char abs[PATH_MAX], tmpl[PATH_MAX], link_path[PATH_MAX + 8], bad_path[PATH_MAX + 16];
    char captured[4096];
    const char *tmpdir = getenv("TMPDIR");
    int cwd_fd, saved_err, failed;
    size_t ncap;
    FILE *cap;
    image im;

    require_readable_file("image", file);
    if (!realpath(file, abs)) die("image '%s': %s", file, strerror(errno));
    if (!tmpdir || !*tmpdir) tmpdir = "/tmp";
    if ((size_t)snprintf(tmpl, sizeof tmpl, "%s/refdump.XXXXXX", tmpdir) >= sizeof tmpl)
        die("TMPDIR too long");
    if (!mkdtemp(tmpl)) die("mkdtemp('%s'): %s", tmpl, strerror(errno));
    snprintf(link_path, sizeof link_path, "%s/img", tmpl);
    snprintf(bad_path, sizeof bad_path, "%s/bad.list", tmpl);
    if (symlink(abs, link_path) != 0) die("symlink in '%s': %s", tmpl, strerror(errno));
    cwd_fd = open(".", O_RDONLY | O_DIRECTORY);
    if (cwd_fd < 0) die("cannot open current directory: %s", strerror(errno));
    if (chdir(tmpl) != 0) die("chdir('%s'): %s", tmpl, strerror(errno));

    cap = tmpfile();
    if (!cap) die("tmpfile: %s", strerror(errno));
    fflush(stderr);
    saved_err = dup(2);
    if (saved_err < 0 || dup2(fileno(cap), 2) < 0) die("cannot redirect stderr: %s", strerror(errno));
    im = load_image_color((char *)"img", 0, 0);
    fflush(stderr);
    dup2(saved_err, 2);
    close(saved_err);

    if (fchdir(cwd_fd) != 0) die("cannot return to the working directory: %s", strerror(errno));
    close(cwd_fd);
    unlink(link_path);
    unlink(bad_path);
    rmdir(tmpl);

    rewind(cap);
    ncap = fread(captured, 1, sizeof captured - 1, cap);
    captured[ncap] = '\0';
    fclose(cap);
    failed = strstr(captured, "Cannot load image") != NULL;
    if (failed) die("libdarknet could not decode image '%s'", file);
    if (ncap) fputs(captured, stderr); /* pass through any other library noise */
    if (!im.data || im.c != 3 || im.w < 1 || im.h < 1)
        die("load_image_color('%s') returned a %dx%dx%d image", file, im.c, im.h, im.w);
    npy_write_chw(out, im.data, im.c, im.h, im.w);
    free_image(im);
    return 0;
}

/* ------------------------------------------------------------------ */

/* Darknet's own detection post-processing on the network's output for INPUT (the already
 * prepared network input): get_network_boxes for an IMG_W x IMG_H image (letterbox correction
 * for yolo/region heads; YOLOv1 detection heads are given 1 x 1, i.e. relative boxes, as
 * `darknet yolo test` does), then do_nms_sort when NMS > 0. Prints one line per detection with a
 * class above THRESH: "x y w h" then "class:prob" pairs, all %.6f. With CANDIDATES_OUT, also the
 * list before NMS there (test/refdump/candidates.h). */
static int cmd_detect(char *cfg, char *weights, const char *input, const char *ws, const char *hs,
                      const char *thresh_s, const char *nms_s, const char *candidates_out)
{
    network *net;
    npy_array in;
    int imw = parse_dim_arg("image width", ws), imh = parse_dim_arg("image height", hs);
    float thresh = (float)atof(thresh_s), nms = (float)atof(nms_s);
    int nboxes = 0, i, j, classes = 0;
    detection *dets;
    layer last;

    require_readable_file("cfg", cfg);
    require_readable_file("weights", weights);
    npy_read(input, &in);
    net = load_network(cfg, weights, 0);
    if (!net || net->n <= 0) die("load_network('%s') produced no layers", cfg);
    set_batch_network(net, 1);
    check_weights_size(net, weights);
    if ((long long)in.count != net->inputs) die("input '%s' has %zu values, the network wants %d", input, in.count,
                                                net->inputs);
    network_predict(net, in.data);
    last = net->layers[net->n - 1];
    if (last.type == DETECTION) imw = imh = 1;
    dets = get_network_boxes(net, imw, imh, thresh, 0.5f, 0, 1, &nboxes);
    for (i = 0; i < net->n; ++i)
        if (net->layers[i].type == YOLO || net->layers[i].type == REGION || net->layers[i].type == DETECTION)
            classes = net->layers[i].classes;
    if (candidates_out) candidates_write(candidates_out, dets, nboxes, classes);
    if (nms > 0) do_nms_sort(dets, nboxes, classes, nms);
    for (i = 0; i < nboxes; ++i) {
        int any = 0;
        for (j = 0; j < classes; ++j) any |= dets[i].prob[j] > thresh;
        if (!any) continue;
        printf("%.6f %.6f %.6f %.6f", dets[i].bbox.x, dets[i].bbox.y, dets[i].bbox.w, dets[i].bbox.h);
        for (j = 0; j < classes; ++j)
            if (dets[i].prob[j] > thresh) printf(" %d:%.6f", j, dets[i].prob[j]);
        printf("\n");
    }
    free_detections(dets, nboxes);
    return 0;
}

/* do_nms_sort on a candidate list written by anyone (the tests give it mdfi's); the whole list
 * after NMS into OUT (test/refdump/candidates.h). */
static int cmd_nms(const char *cands, const char *thresh, const char *out)
{
    int n = 0, classes = 0;
    detection *dets = candidates_read(cands, &n, &classes);
    do_nms_sort(dets, n, classes, (float)atof(thresh));
    candidates_write(out, dets, n, classes);
    candidates_free(dets, n);
    return 0;
}

static void usage(void)
{
    fputs("usage:\n"
          "  " PROG " forward   CFG WEIGHTS INPUT.npy OUTDIR\n"
          "  " PROG " letterbox INPUT_IMAGE.npy W H OUT.npy\n"
          "  " PROG " resize    INPUT_IMAGE.npy W H OUT.npy\n"
          "  " PROG " loadimage IMAGE_FILE OUT.npy\n"
          "  " PROG " detect    CFG WEIGHTS INPUT.npy IMG_W IMG_H THRESH NMS [CANDIDATES_OUT]\n"
          "  " PROG " nms       CANDIDATES THRESH OUT\n",
          stderr);
}

int main(int argc, char **argv)
{
    if (!host_is_little_endian()) die("big-endian hosts are not supported");
    if (argc >= 2 && strcmp(argv[1], "forward") == 0 && argc == 6)
        return cmd_forward(argv[2], argv[3], argv[4], argv[5]);
    if (argc >= 2 && strcmp(argv[1], "letterbox") == 0 && argc == 6)
        return cmd_resize(1, argv[2], argv[3], argv[4], argv[5]);
    if (argc >= 2 && strcmp(argv[1], "resize") == 0 && argc == 6)
        return cmd_resize(0, argv[2], argv[3], argv[4], argv[5]);
    if (argc >= 2 && strcmp(argv[1], "detect") == 0 && (argc == 9 || argc == 10))
        return cmd_detect(argv[2], argv[3], argv[4], argv[5], argv[6], argv[7], argv[8], argc == 10 ? argv[9] : NULL);
    if (argc >= 2 && strcmp(argv[1], "nms") == 0 && argc == 5) return cmd_nms(argv[2], argv[3], argv[4]);
    if (argc >= 2 && strcmp(argv[1], "loadimage") == 0 && argc == 4)
        return cmd_loadimage(argv[2], argv[3]);
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage();
        return 0;
    }
    usage();
    fputs(PROG ": error: bad arguments\n", stderr);
    return 2;
}
