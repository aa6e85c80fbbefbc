/* What the chapter-5 feature demos (rknn_dynamic_shape, rknn_multi_batch, rknn_cache_sync,
 * rknn_sram_query) share: the Fashion-MNIST images, the attribute dump of the vendor's demos,
 * a normal-API run and the comparison of scores. */
#ifndef LENET_COMMON_H
#define LENET_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "rknn_api.h"

#define LENET_PIXELS (28 * 28)
#define LENET_CLASSES 10

/* COUNT raw 28x28 uint8 images (fashion_data.py prepare's images.u8); NULL on failure. */
unsigned char* load_images(const char* path, int count);

void dump_tensor_attr(const rknn_tensor_attr* attr);

/* rknn_init on the file (size 0: a path) and RKNN_QUERY_IN_OUT_NUM, checking one input and
 * one output; 0 on success. */
int init_lenet(const char* model, uint32_t flags, rknn_context* ctx);

/* The normal API: `batch` images in one rknn_inputs_set (UINT8 NHWC), float scores of each
 * image into scores[batch][LENET_CLASSES]; 0 on success. */
int run_normal(rknn_context ctx, const unsigned char* images, int batch, float* scores);

/* Largest |a - b| relative to max(1, |b|) over n scores. */
float max_rel_diff(const float* a, const float* b, size_t n);

#endif
