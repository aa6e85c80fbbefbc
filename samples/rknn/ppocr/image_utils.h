/*
 * Image and file helpers of the PP-OCR RKNN demos (the model zoo keeps its own in
 * utils/image_utils.c; these are ours): PNG decoding with libpng, bilinear resizing, .npy
 * writing for the onnxruntime check.
 */
#ifndef RKNN_PPOCR_IMAGE_UTILS_H
#define RKNN_PPOCR_IMAGE_UTILS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int width;
    int height;
    unsigned char* rgb; /* height * width * 3 bytes, row-major, owned */
} image_buffer_t;

/* Any PNG (palette, grey, 16-bit, alpha) as 8-bit RGB. 0 = success. */
int read_png_rgb(const char* path, image_buffer_t* image);
void free_image(image_buffer_t* image);

/* Bilinear resize of the rectangle [x0, x1) x [y0, y1) of `src` into dst_w x dst_h RGB
 * pixels written at `dst` with rows of `dst_stride` pixels. */
void resize_rgb(const image_buffer_t* src, int x0, int y0, int x1, int y1, unsigned char* dst, int dst_w, int dst_h,
                int dst_stride);

/* A C-order .npy of `dims` (descr "|u1" or "<f4"). 0 = success. */
int write_npy(const char* path, const char* descr, const uint32_t* dims, int n_dims, const void* data,
              size_t bytes);

#endif
