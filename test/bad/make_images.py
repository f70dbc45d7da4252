#!/usr/bin/env python3
"""Writes the small image files of mdfi's bad-input corpus (test/bad/img/ and the good input
test/bad/good/small.png) with nothing but the standard library, so the corpus can be re-made and
reviewed byte by byte. JPEG cases are made by the test itself at run time (stb_image_write)."""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)


def png(w, h, color_type, bit_depth, rows, interlace=0, ihdr_w=None, ihdr_h=None):
    """rows: list of raw scanline bytes (without the filter byte)."""
    ihdr = struct.pack('>IIBBBBB', w if ihdr_w is None else ihdr_w, h if ihdr_h is None else ihdr_h,
                       bit_depth, color_type, 0, 0, interlace)
    raw = b''.join(b'\x00' + r for r in rows)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')


def rgb_rows(w, h):
    return [bytes(v for x in range(w) for v in ((x * 255) // max(1, w - 1), (y * 255) // max(1, h - 1), 128))
            for y in range(h)]


def write(rel, data):
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data)


good = png(48, 40, 2, 8, rgb_rows(48, 40))
write('good/small.png', good)

write('img/zero-bytes.png', b'')
write('img/text-named.jpg', b'This is a text file that someone named .jpg\n')
write('img/truncated.png', good[:len(good) // 2])
write('img/header-only.png', good[:33])  # signature + IHDR, no IDAT
write('img/bad-signature.png', b'\x89PNX' + good[4:])
bad_depth = bytearray(good)
bad_depth[24] = 7  # IHDR bit depth 7 is not a PNG bit depth
write('img/bad-bit-depth.png', bytes(bad_depth))
write('img/huge-header.png', png(1, 1, 2, 8, rgb_rows(1, 1), ihdr_w=60000, ihdr_h=60000))
write('img/zero-width.png', png(1, 1, 2, 8, rgb_rows(1, 1), ihdr_w=0))
corrupt_zlib = bytearray(good)
idat = good.index(b'IDAT') + 4
for i in range(idat + 2, idat + 40):
    corrupt_zlib[i] ^= 0x5a
write('img/corrupt-idat.png', bytes(corrupt_zlib))
write('img/gif-header-only.gif', b'GIF89a\x10\x00\x10\x00\x80\x00\x00')
write('img/bmp-header-only.bmp', b'BM' + struct.pack('<IHHI', 1000, 0, 0, 54) +
      struct.pack('<IiiHHIIiiII', 40, 30000, 30000, 1, 24, 0, 0, 0, 0, 0, 0))

# Valid but unusual images: these must work (exit 0).
write('img/16bit.png', png(8, 6, 2, 16, [bytes(v for x in range(8) for c in range(3) for v in (x * 30, y * 40))
                                          for y in range(6)]))
write('img/grey.png', png(20, 16, 0, 8, [bytes((x * 12) % 256 for x in range(20)) for y in range(16)]))
write('img/grey-alpha.png', png(20, 16, 4, 8, [bytes(v for x in range(20) for v in (x * 12, 200)) for y in range(16)]))
write('img/rgba.png', png(20, 16, 6, 8, [bytes(v for x in range(20) for v in (x * 12, y * 15, 50, 128))
                                         for y in range(16)]))
# Adam7 needs per-pass scanlines; build them explicitly.
def adam7(w, h, pixel):
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    raw = b''
    for x0, y0, dx, dy in passes:
        xs = list(range(x0, w, dx))
        ys = list(range(y0, h, dy))
        if not xs or not ys:
            continue
        for y in ys:
            raw += b'\x00' + b''.join(pixel(x, y) for x in xs)
    ihdr = struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 1)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')
write('img/interlaced.png', adam7(17, 13, lambda x, y: bytes((x * 15, y * 19, 77))))
write('img/one-pixel.png', png(1, 1, 2, 8, rgb_rows(1, 1)))
write('img/wide-strip.png', png(64, 2, 2, 8, rgb_rows(64, 2)))
write('img/very-wide.png', png(1000, 1, 2, 8, rgb_rows(1000, 1)))
write('img/tall-strip.png', png(2, 64, 2, 8, rgb_rows(2, 64)))
