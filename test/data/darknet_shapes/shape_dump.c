/* Test-data capture tool (not built by default): prints, for one cfg, every layer's type and
 * output shape as libdarknet (Debian package) builds it, one "L index type c h w outputs" line
 * each. capture.sh runs it over /usr/share/darknet/cfg and joins in the BFLOPs darknet prints,
 * producing ../darknet_shapes.txt that test/unit/test_shapes.cpp checks mdfi against. */
#include <darknet.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: shape_dump CFG\n");
        return 2;
    }
    network *net = parse_network_cfg(argv[1]);
    for (int i = 0; i < net->n; ++i) {
        layer l = net->layers[i];
        printf("L %d %d %d %d %d %d\n", i, (int)l.type, l.out_c, l.out_h, l.out_w, l.outputs);
    }
    return 0;
}
