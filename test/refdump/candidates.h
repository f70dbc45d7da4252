/*
 * Candidate boxes as a text file, shared by both reference helpers (darknet_refdump and
 * alexeyab_refdump) and read and written by mdfi's tests (test/box_parity.cpp): the detections
 * get_network_boxes returns, before or after NMS, so that the two NMS implementations can be run
 * on the very same list. Floats are C99 hex floats (%a), so a list survives the round trip bit
 * for bit.
 *
 *   line 1:   N CLASSES
 *   N lines:  x y w h objectness p0 p1 ... p(CLASSES-1)
 *
 * Include after darknet.h (either Darknet's): it uses the fields both `detection` structs share.
 * Each helper defines die() before including it.
 */
#ifndef MDFI_REFDUMP_CANDIDATES_H
#define MDFI_REFDUMP_CANDIDATES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void candidates_write(const char *path, const detection *dets, int n, int classes)
{
    int i, j;
    FILE *f = fopen(path, "w");
    if (!f) die("cannot create '%s'", path);
    fprintf(f, "%d %d\n", n, classes);
    for (i = 0; i < n; ++i) {
        const detection *d = &dets[i];
        fprintf(f, "%a %a %a %a %a", d->bbox.x, d->bbox.y, d->bbox.w, d->bbox.h, d->objectness);
        for (j = 0; j < classes; ++j) fprintf(f, " %a", d->prob[j]);
        fputc('\n', f);
    }
    if (fclose(f) != 0) die("write error on '%s'", path);
}

/* Reads a list written by candidates_write (or by the tests); *classes gets its class count.
 * Each detection's prob is its own calloc'd array; free with candidates_free. */
static detection *candidates_read(const char *path, int *n, int *classes)
{
    int i, j;
    detection *dets;
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open '%s'", path);
    if (fscanf(f, "%d %d", n, classes) != 2 || *n < 0 || *classes < 1) die("'%s': bad header", path);
    dets = (detection *)calloc((size_t)*n + 1, sizeof(detection));
    if (!dets) die("out of memory");
    for (i = 0; i < *n; ++i) {
        detection *d = &dets[i];
        d->classes = *classes;
        d->prob = (float *)calloc((size_t)*classes, sizeof(float));
        if (!d->prob) die("out of memory");
        if (fscanf(f, "%a %a %a %a %a", &d->bbox.x, &d->bbox.y, &d->bbox.w, &d->bbox.h, &d->objectness) != 5)
            die("'%s': candidate %d is truncated", path, i);
        for (j = 0; j < *classes; ++j)
            if (fscanf(f, "%a", &d->prob[j]) != 1) die("'%s': candidate %d has %d of %d classes", path, i, j, *classes);
    }
    fclose(f);
    return dets;
}

static void candidates_free(detection *dets, int n)
{
    int i;
    for (i = 0; i < n; ++i) free(dets[i].prob);
    free(dets);
}

#endif
