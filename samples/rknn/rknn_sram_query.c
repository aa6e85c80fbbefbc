/* SRAM (seed 000 §5.7): rknn_init with RKNN_FLAG_ENABLE_SRAM puts as much of the model's
 * internal tensors as fits into the NPU's SRAM, and RKNN_QUERY_MEM_SIZE reports the SRAM
 * given to the NPU (total_sram_size) and what is left (free_sram_size). The software NPU has
 * no SRAM (docs/rknn.md): the flag is accepted with a warning, both sizes are 0 and every
 * tensor stays in DRAM, as on an RK3588 whose device tree gives the NPU no SRAM. Check: those
 * answers, and the model's scores with the flag equal to its scores without it.
 *   rknn_sram_query IMAGES.u8 COUNT MODEL.rknn */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lenet/lenet_common.h"
#include "rknn_api.h"

static int query_mem_size(rknn_context ctx, const char* which, rknn_mem_size* mem_size) {
    int ret;
    memset(mem_size, 0, sizeof *mem_size);
    ret = rknn_query(ctx, RKNN_QUERY_MEM_SIZE, mem_size, sizeof *mem_size);
    if (ret != RKNN_SUCC) {
        printf("rknn_query(RKNN_QUERY_MEM_SIZE) fail! ret=%d\n", ret);
        return -1;
    }
    printf("%s:\n  total weight size: %u, total internal size: %u\n  total dma used size: %llu\n"
           "  total_sram_size: %u, free_sram_size: %u\n",
           which, mem_size->total_weight_size, mem_size->total_internal_size,
           (unsigned long long)mem_size->total_dma_allocated_size, mem_size->total_sram_size,
           mem_size->free_sram_size);
    /* /sys/kernel/debug/rknpu/mm's summary line (§5.7.3.2), from the query. */
    printf("  SRAM total size: %u, used: %u, free: %u\n", mem_size->total_sram_size,
           mem_size->total_sram_size - mem_size->free_sram_size, mem_size->free_sram_size);
    return 0;
}

int main(int argc, char** argv) {
    rknn_context ctx = 0, plain = 0;
    rknn_mem_size with_sram, without_sram;
    unsigned char* images = NULL;
    float *scores = NULL, *expected = NULL;
    int count, k, ret = 1;
    if (argc != 4) {
        printf("usage: %s IMAGES.u8 COUNT MODEL.rknn\n", argv[0]);
        return 2;
    }
    count = atoi(argv[2]);
    if ((images = load_images(argv[1], count)) == NULL || init_lenet(argv[3], RKNN_FLAG_ENABLE_SRAM, &ctx) != 0 ||
        init_lenet(argv[3], 0, &plain) != 0) {
        goto out;
    }
    if (query_mem_size(ctx, "RKNN_FLAG_ENABLE_SRAM", &with_sram) != 0 ||
        query_mem_size(plain, "without the flag", &without_sram) != 0) {
        goto out;
    }
    /* No SRAM: nothing given to the NPU, nothing free, and the internal tensors (DRAM) the
     * same as without the flag. */
    if (with_sram.total_sram_size != 0 || with_sram.free_sram_size != 0) {
        printf("the software NPU has no SRAM, yet total_sram_size=%u free_sram_size=%u\n", with_sram.total_sram_size,
               with_sram.free_sram_size);
        goto out;
    }
    if (with_sram.total_internal_size != without_sram.total_internal_size ||
        with_sram.total_dma_allocated_size != without_sram.total_dma_allocated_size ||
        with_sram.total_weight_size != without_sram.total_weight_size || with_sram.total_internal_size == 0) {
        printf("the DRAM sizes differ with RKNN_FLAG_ENABLE_SRAM (or no internal memory was reported)\n");
        goto out;
    }

    scores = (float*)malloc((size_t)count * LENET_CLASSES * sizeof(float));
    expected = (float*)malloc((size_t)count * LENET_CLASSES * sizeof(float));
    if (scores == NULL || expected == NULL) goto out;
    for (k = 0; k < count; ++k) {
        const unsigned char* image = images + (size_t)k * LENET_PIXELS;
        if (run_normal(ctx, image, 1, scores + (size_t)k * LENET_CLASSES) != 0 ||
            run_normal(plain, image, 1, expected + (size_t)k * LENET_CLASSES) != 0) {
            goto out;
        }
    }
    if (memcmp(scores, expected, (size_t)count * LENET_CLASSES * sizeof(float)) != 0) {
        printf("the scores with RKNN_FLAG_ENABLE_SRAM differ from those without it (largest difference %g)\n",
               max_rel_diff(scores, expected, (size_t)count * LENET_CLASSES));
        goto out;
    }
    if (count > 1 && max_rel_diff(scores, scores + LENET_CLASSES, LENET_CLASSES) < 1e-3f) {
        printf("images 0 and 1 have the same scores: the model's output does not depend on its input\n");
        goto out;
    }
    printf("%d images: the scores with RKNN_FLAG_ENABLE_SRAM equal those without it\n", count);
    printf("rknn sram query sample OK\n");
    ret = 0;
out:
    if (ctx != 0) rknn_destroy(ctx);
    if (plain != 0) rknn_destroy(plain);
    free(scores);
    free(expected);
    free(images);
    return ret;
}
