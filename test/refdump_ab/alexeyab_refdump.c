/*
 * alexeyab_refdump: test-only helper that drives AlexeyAB's Darknet (a CPU-only libdarknet.so
 * built in the build tree from ../shared/refs, see CMakeLists.txt here) to produce reference
 * data for mdfi's `--compat alexeyab` parity tests. Never part of mdfi itself.
 *
 *   alexeyab_refdump forward CFG WEIGHTS INPUT.npy OUTDIR [IMG_W IMG_H THRESH NMS LETTERBOX]
 *
 * It loads the network the way AlexeyAB's detector does: load_network_custom(cfg, weights, 0, 1)
 * then fuse_conv_batchnorm, and run network_predict_ptr on INPUT (the prepared network input,
 * '<f4', any shape with c*h*w values).
 * forward: OUTDIR/NNN.npy per layer (1-D, `outputs` floats; layers with no inference output are
 * left out) and OUTDIR/layers.txt ("index type outputs" per layer).
 * With the image arguments, also OUTDIR/detections.txt: get_network_boxes for an IMG_W x IMG_H
 * image (relative boxes, LETTERBOX 0/1 as the detector's -letter_box), then the NMS the last
 * layer's nms_kind asks for (do_nms_sort or diounms_sort) when NMS > 0, as its test_detector
 * does. One line per box with a class above THRESH: "x y w h" then "class:prob" pairs, %.6f.
 * Also OUTDIR/candidates.txt, get_network_boxes' list before NMS (test/refdump/candidates.h),
 * and OUTDIR/nms.txt, "KIND BETA" of the last layer (NMS_KIND as a number, beta_nms).
 *
 *   alexeyab_refdump nms CANDIDATES THRESH KIND BETA OUT
 *
 * nms: AlexeyAB's NMS (do_nms_sort for KIND 0, else diounms_sort with KIND and BETA) on a
 * candidate list written by anyone (the tests give it mdfi's), the whole list after NMS into OUT.
 *
 *   alexeyab_refdump nms-cfg CFG CANDIDATES THRESH OUT
 *
 * nms-cfg: the same, with KIND and BETA as AlexeyAB's parser reads them from CFG's last layer.
 * Exit status: 0 success, 1 failure (one "alexeyab_refdump: error: ..." line), 2 bad usage.
 */
#define _POSIX_C_SOURCE 200809L

#include <darknet.h>

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PROG "alexeyab_refdump"

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
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

/* Reads a little-endian float32 .npy (format 1.x or 2.x, C order); returns its values. */
static float *npy_read(const char *path, size_t *count)
{
    FILE *f = fopen(path, "rb");
    unsigned char pre[12];
    size_t hlen, n = 1, got;
    char *hdr, *p;
    float *data;
    if (!f) die("cannot open '%s': %s", path, strerror(errno));
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) die("'%s' is not a .npy file", path);
    if (pre[6] == 1) {
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    } else {
        if (fread(pre + 10, 1, 2, f) != 2) die("'%s': truncated header", path);
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    }
    if (hlen > 65536) die("'%s': header too long", path);
    hdr = calloc(hlen + 1, 1);
    if (!hdr || fread(hdr, 1, hlen, f) != hlen) die("'%s': truncated header", path);
    if (!strstr(hdr, "'<f4'") || strstr(hdr, "'fortran_order': True")) die("'%s' is not C-order '<f4'", path);
    p = strstr(hdr, "'shape':");
    if (!p || !(p = strchr(p, '('))) die("'%s': no shape", path);
    for (++p; *p && *p != ')';) {
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p) { ++p; continue; }
        if (d < 0) die("'%s': negative dimension", path);
        n *= (size_t)d;
        p = end;
    }
    free(hdr);
    data = malloc(n * sizeof(float) + 1);
    if (!data) die("out of memory");
    got = fread(data, sizeof(float), n, f);
    fclose(f);
    if (got != n) die("'%s': %zu of %zu values", path, got, n);
    *count = n;
    return data;
}

#include "../refdump/candidates.h"

static void npy_write_1d(const char *path, const float *data, long n)
{
    char hdr[128];
    int len = snprintf(hdr, sizeof hdr, "{'descr': '<f4', 'fortran_order': False, 'shape': (%ld,), }", n);
    int total = 10 + len + 1, pad = (64 - total % 64) % 64;
    unsigned short hlen = (unsigned short)(len + pad + 1);
    FILE *f = fopen(path, "wb");
    if (!f) die("cannot create '%s': %s", path, strerror(errno));
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(hlen & 0xff, f);
    fputc(hlen >> 8, f);
    fwrite(hdr, 1, (size_t)len, f);
    while (pad--) fputc(' ', f);
    fputc('\n', f);
    if (fwrite(data, sizeof(float), (size_t)n, f) != (size_t)n || fclose(f) != 0) die("write error on '%s'", path);
}

static network *load(char *cfg, char *weights, const char *input, float **in)
{
    size_t count = 0;
    network *net;
    FILE *f;
    if (!(f = fopen(cfg, "r"))) die("cfg '%s': %s", cfg, strerror(errno));
    fclose(f);
    if (!(f = fopen(weights, "rb"))) die("weights '%s': %s", weights, strerror(errno));
    fclose(f);
    *in = npy_read(input, &count);
    net = load_network_custom(cfg, weights, 0, 1);
    if (!net || net->n <= 0) die("load_network_custom('%s') produced no layers", cfg);
    fuse_conv_batchnorm(*net);
    if ((long long)count != (long long)net->w * net->h * net->c)
        die("input '%s' has %zu values, the network wants %d x %d x %d", input, count, net->c, net->h, net->w);
    return net;
}

/* test_detector's post-processing on the network's last forward pass, into `path`. */
static void write_detections(network *net, const char *dir, const char *path, int imw, int imh, float thresh,
                             float nms, int letter)
{
    layer last = net->layers[net->n - 1];
    int nboxes = 0, i, j;
    char cpath[4096];
    FILE *k;
    detection *dets = get_network_boxes(net, imw, imh, thresh, 0.5f, 0, 1, &nboxes, letter);
    FILE *f = fopen(path, "w");
    if (!f) die("cannot create '%s': %s", path, strerror(errno));
    snprintf(cpath, sizeof cpath, "%s/candidates.txt", dir);
    candidates_write(cpath, dets, nboxes, last.classes);
    snprintf(cpath, sizeof cpath, "%s/nms.txt", dir);
    if (!(k = fopen(cpath, "w")) || fprintf(k, "%d %a\n", (int)last.nms_kind, last.beta_nms) < 0 || fclose(k) != 0)
        die("cannot write '%s'", cpath);
    if (nms > 0) {
        if (last.nms_kind == DEFAULT_NMS) do_nms_sort(dets, nboxes, last.classes, nms);
        else diounms_sort(dets, nboxes, last.classes, nms, last.nms_kind, last.beta_nms);
    }
    for (i = 0; i < nboxes; ++i) {
        int any = 0;
        for (j = 0; j < last.classes; ++j) any |= dets[i].prob[j] > thresh;
        if (!any) continue;
        fprintf(f, "%.6f %.6f %.6f %.6f", dets[i].bbox.x, dets[i].bbox.y, dets[i].bbox.w, dets[i].bbox.h);
        for (j = 0; j < last.classes; ++j)
            if (dets[i].prob[j] > thresh) fprintf(f, " %d:%.6f", j, dets[i].prob[j]);
        fputc('\n', f);
    }
    if (fclose(f) != 0) die("write error on '%s'", path);
    free_detections(dets, nboxes);
}

static int cmd_forward(char *cfg, char *weights, const char *input, const char *outdir, char **det)
{
    float *in;
    network *net = load(cfg, weights, input, &in);
    char path[4096];
    FILE *lt;
    int i, written = 0;
    if (mkdir(outdir, 0755) != 0 && errno != EEXIST) die("cannot create '%s': %s", outdir, strerror(errno));
    network_predict_ptr(net, in);
    snprintf(path, sizeof path, "%s/layers.txt", outdir);
    if (!(lt = fopen(path, "w"))) die("cannot create '%s': %s", path, strerror(errno));
    for (i = 0; i < net->n; ++i) {
        layer *l = &net->layers[i];
        fprintf(lt, "%d %d %d\n", i, (int)l->type, l->outputs);
        if (l->type == COST || !l->output || l->outputs <= 0) continue; /* nothing computed at inference */
        snprintf(path, sizeof path, "%s/%03d.npy", outdir, i);
        npy_write_1d(path, l->output, l->outputs);
        ++written;
    }
    if (fclose(lt) != 0) die("write error on layers.txt");
    if (det) {
        snprintf(path, sizeof path, "%s/detections.txt", outdir);
        write_detections(net, outdir, path, atoi(det[0]), atoi(det[1]), (float)atof(det[2]), (float)atof(det[3]),
                         atoi(det[4]));
    }
    printf("forward: %d layers, %d written to %s\n", net->n, written, outdir);
    free(in);
    free_network_ptr(net);
    return 0;
}

static int cmd_nms(const char *cands, const char *thresh, const char *kind, const char *beta, const char *out)
{
    int n = 0, classes = 0;
    detection *dets = candidates_read(cands, &n, &classes);
    const int k = atoi(kind);
    if (k == DEFAULT_NMS) do_nms_sort(dets, n, classes, (float)atof(thresh));
    else diounms_sort(dets, n, classes, (float)atof(thresh), (NMS_KIND)k, strtof(beta, NULL));
    candidates_write(out, dets, n, classes);
    candidates_free(dets, n);
    return 0;
}

network parse_network_cfg_custom(char *filename, int batch, int time_steps); /* src/parser.h */
void free_network(network net);

static int cmd_nms_cfg(char *cfg, const char *cands, const char *thresh, const char *out)
{
    network net = parse_network_cfg_custom(cfg, 1, 1);
    char kind[16], beta[64];
    if (net.n <= 0) die("'%s' has no layers", cfg);
    snprintf(kind, sizeof kind, "%d", (int)net.layers[net.n - 1].nms_kind);
    snprintf(beta, sizeof beta, "%a", net.layers[net.n - 1].beta_nms);
    free_network(net);
    return cmd_nms(cands, thresh, kind, beta, out);
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "nms-cfg") == 0) return cmd_nms_cfg(argv[2], argv[3], argv[4], argv[5]);
    if (argc == 7 && strcmp(argv[1], "nms") == 0) return cmd_nms(argv[2], argv[3], argv[4], argv[5], argv[6]);
    if ((argc == 6 || argc == 11) && strcmp(argv[1], "forward") == 0)
        return cmd_forward(argv[2], argv[3], argv[4], argv[5], argc == 11 ? argv + 6 : NULL);
    fputs("usage: " PROG " forward CFG WEIGHTS INPUT.npy OUTDIR [IMG_W IMG_H THRESH NMS LETTERBOX]\n"
          "       " PROG " nms CANDIDATES THRESH KIND BETA OUT\n"
          "       " PROG " nms-cfg CFG CANDIDATES THRESH OUT\n", stderr);
    return 2;
}
