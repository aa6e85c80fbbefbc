#include "image_utils.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int read_png_rgb(const char* path, image_buffer_t* image) {
    png_image png;
    memset(&png, 0, sizeof png);
    memset(image, 0, sizeof *image);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&png, path)) {
        fprintf(stderr, "%s: %s\n", path, png.message);
        return -1;
    }
    png.format = PNG_FORMAT_RGB;
    image->rgb = (unsigned char*)malloc(PNG_IMAGE_SIZE(png));
    if (image->rgb == NULL || !png_image_finish_read(&png, NULL, image->rgb, 0, NULL)) {
        fprintf(stderr, "%s: %s\n", path, image->rgb == NULL ? "out of memory" : png.message);
        png_image_free(&png);
        free(image->rgb);
        image->rgb = NULL;
        return -1;
    }
    image->width = (int)png.width;
    image->height = (int)png.height;
    return 0;
}

void free_image(image_buffer_t* image) {
    free(image->rgb);
    image->rgb = NULL;
}

void resize_rgb(const image_buffer_t* src, int x0, int y0, int x1, int y1, unsigned char* dst, int dst_w, int dst_h,
                int dst_stride) {
    /* Pixel centres aligned (half-pixel offsets), edges clamped: OpenCV's INTER_LINEAR. */
    float sx = (float)(x1 - x0) / (float)dst_w, sy = (float)(y1 - y0) / (float)dst_h;
    int x, y, c;
    for (y = 0; y < dst_h; ++y) {
        float fy = ((float)y + 0.5f) * sy - 0.5f + (float)y0;
        int iy;
        float wy;
        if (fy < (float)y0) fy = (float)y0;
        iy = (int)fy;
        wy = fy - (float)iy;
        if (iy >= y1 - 1) { iy = y1 - 1; wy = 0.0f; }
        for (x = 0; x < dst_w; ++x) {
            float fx = ((float)x + 0.5f) * sx - 0.5f + (float)x0;
            int ix;
            float wx;
            if (fx < (float)x0) fx = (float)x0;
            ix = (int)fx;
            wx = fx - (float)ix;
            if (ix >= x1 - 1) { ix = x1 - 1; wx = 0.0f; }
            for (c = 0; c < 3; ++c) {
                const unsigned char* p = src->rgb + ((size_t)iy * (size_t)src->width + (size_t)ix) * 3 + c;
                float top = (float)p[0], bottom = top;
                float v;
                if (wx > 0.0f) top += wx * ((float)p[3] - top);
                if (wy > 0.0f) {
                    const unsigned char* q = p + (size_t)src->width * 3;
                    bottom = (float)q[0];
                    if (wx > 0.0f) bottom += wx * ((float)q[3] - bottom);
                    v = top + wy * (bottom - top);
                } else {
                    v = top;
                }
                dst[((size_t)y * (size_t)dst_stride + (size_t)x) * 3 + c] = (unsigned char)(v + 0.5f);
            }
        }
    }
}

int write_npy(const char* path, const char* descr, const uint32_t* dims, int n_dims, const void* data,
              size_t bytes) {
    char header[256];
    char shape[128] = "";
    int i, len;
    FILE* f;
    for (i = 0; i < n_dims; ++i) {
        size_t used = strlen(shape);
        snprintf(shape + used, sizeof shape - used, "%u,%s", dims[i], i + 1 < n_dims ? " " : "");
    }
    len = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape);
    /* Magic (6) + version (2) + length (2) + header + '\n' padded to a multiple of 64. */
    while ((10 + len + 1) % 64 != 0) header[len++] = ' ';
    header[len++] = '\n';
    f = fopen(path, "wb");
    if (f == NULL) return -1;
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(len & 0xff, f);
    fputc((len >> 8) & 0xff, f);
    fwrite(header, 1, (size_t)len, f);
    fwrite(data, 1, bytes, f);
    return fclose(f) == 0 ? 0 : -1;
}
