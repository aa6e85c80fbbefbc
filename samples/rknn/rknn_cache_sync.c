/* Cacheable memory coherence (seed 000 §5.10): memory from rknn_create_mem is cacheable, so
 * the CPU's writes sit in its cache until rknn_mem_sync(TO_DEVICE) and the NPU's results
 * reach the CPU after rknn_mem_sync(FROM_DEVICE). The context is created with
 * RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE | RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE, so
 * rknn_run leaves the syncs to the application (by default it does both itself). Shown on
 * the software NPU's cache emulation as on a board: the input written without TO_DEVICE is
 * read stale by the NPU, the output read without FROM_DEVICE is stale on the CPU; with both
 * syncs the scores equal the normal API's.
 *   rknn_cache_sync IMAGES.u8 COUNT MODEL.rknn */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lenet/lenet_common.h"
#include "rknn_api.h"

#define TOLERANCE 1e-6f

static int sync_mem(rknn_context ctx, rknn_tensor_mem* mem, rknn_mem_sync_mode mode, const char* what) {
    int ret = rknn_mem_sync(ctx, mem, mode);
    if (ret < 0) printf("rknn_mem_sync(%s) fail! ret=%d\n", what, ret);
    return ret < 0 ? -1 : 0;
}

static int run(rknn_context ctx) {
    int ret = rknn_run(ctx, NULL);
    if (ret < 0) printf("rknn_run fail! ret=%d\n", ret);
    return ret < 0 ? -1 : 0;
}

/* The scores in the CPU's view of the output memory, compared with `expected`. */
static int output_is(const rknn_tensor_mem* output_mem, const float* expected, const char* step) {
    float scores[LENET_CLASSES];
    float d;
    memcpy(scores, output_mem->virt_addr, sizeof scores);
    d = max_rel_diff(scores, expected, LENET_CLASSES);
    printf("%-58s scores[0..2] = %9.4f %9.4f %9.4f (difference %g)\n", step, scores[0], scores[1], scores[2], d);
    return d <= TOLERANCE;
}

int main(int argc, char** argv) {
    rknn_context ctx = 0, normal = 0;
    rknn_tensor_attr input, output;
    rknn_tensor_mem *input_mem = NULL, *output_mem = NULL;
    unsigned char* images = NULL;
    float a[LENET_CLASSES], b[LENET_CLASSES];
    int ret = 1;
    if (argc != 4) {
        printf("usage: %s IMAGES.u8 COUNT MODEL.rknn\n", argv[0]);
        return 2;
    }
    if ((images = load_images(argv[1], 2)) == NULL || init_lenet(argv[3], 0, &normal) != 0 ||
        init_lenet(argv[3], RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE | RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE,
                   &ctx) != 0) {
        goto out;
    }
    /* The normal API's answers for images A and B (the runtime copies and syncs itself). */
    if (run_normal(normal, images, 1, a) != 0 || run_normal(normal, images + LENET_PIXELS, 1, b) != 0) goto out;
    if (max_rel_diff(a, b, LENET_CLASSES) < 1e-3f) {
        printf("images A and B have the same scores: stale data could not be told apart\n");
        goto out;
    }

    memset(&input, 0, sizeof input);
    memset(&output, 0, sizeof output);
    if (rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &input, sizeof input) != RKNN_SUCC ||
        rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &output, sizeof output) != RKNN_SUCC) {
        printf("rknn_query(INPUT_ATTR / OUTPUT_ATTR) fail!\n");
        goto out;
    }
    dump_tensor_attr(&input);
    dump_tensor_attr(&output);
    if (output.n_elems != LENET_CLASSES || input.n_elems != LENET_PIXELS || input.w_stride != 28) {
        printf("the demo needs the batch-1 LeNet (28x28x1 pixels in, %d scores out)\n", LENET_CLASSES);
        goto out;
    }
    /* rknn_create_mem: cacheable (RKNN_FLAG_MEMORY_CACHEABLE is rknn_create_mem2's default). */
    input_mem = rknn_create_mem(ctx, LENET_PIXELS); /* UINT8 pixels, converted by the NPU */
    output_mem = rknn_create_mem(ctx, output.n_elems * sizeof(float));
    if (input_mem == NULL || output_mem == NULL) {
        printf("rknn_create_mem fail!\n");
        goto out;
    }
    input.type = RKNN_TENSOR_UINT8;
    input.fmt = RKNN_TENSOR_NHWC;
    output.type = RKNN_TENSOR_FLOAT32;
    if (rknn_set_io_mem(ctx, input_mem, &input) < 0 || rknn_set_io_mem(ctx, output_mem, &output) < 0) {
        printf("rknn_set_io_mem fail!\n");
        goto out;
    }

    /* 1. Image A written and synced to the device: the NPU computes A, but the CPU still
     *    sees its cached output lines until FROM_DEVICE. */
    memcpy(input_mem->virt_addr, images, LENET_PIXELS);
    if (sync_mem(ctx, input_mem, RKNN_MEMORY_SYNC_TO_DEVICE, "input, TO_DEVICE") != 0 || run(ctx) != 0) goto out;
    if (output_is(output_mem, a, "A, TO_DEVICE, run, output read without FROM_DEVICE:")) {
        printf("the output read without rknn_mem_sync(FROM_DEVICE) already had the new scores\n");
        goto out;
    }
    if (sync_mem(ctx, output_mem, RKNN_MEMORY_SYNC_FROM_DEVICE, "output, FROM_DEVICE") != 0) goto out;
    if (!output_is(output_mem, a, "A, output after FROM_DEVICE:")) {
        printf("the synced output is not image A's scores\n");
        goto out;
    }

    /* 2. Image B written without TO_DEVICE: the NPU reads A's bytes still in DDR. */
    memcpy(input_mem->virt_addr, images + LENET_PIXELS, LENET_PIXELS);
    if (run(ctx) != 0 || sync_mem(ctx, output_mem, RKNN_MEMORY_SYNC_FROM_DEVICE, "output, FROM_DEVICE") != 0) goto out;
    if (!output_is(output_mem, a, "B written without TO_DEVICE, run, FROM_DEVICE (stale A):") ||
        output_is(output_mem, b, "  ... compared with B's scores:")) {
        printf("the NPU did not compute on the stale input\n");
        goto out;
    }

    /* 3. The right sequence: TO_DEVICE after writing, FROM_DEVICE after the run. */
    if (sync_mem(ctx, input_mem, RKNN_MEMORY_SYNC_TO_DEVICE, "input, TO_DEVICE") != 0 || run(ctx) != 0 ||
        sync_mem(ctx, output_mem, RKNN_MEMORY_SYNC_FROM_DEVICE, "output, FROM_DEVICE") != 0) {
        goto out;
    }
    if (!output_is(output_mem, b, "B, TO_DEVICE, run, FROM_DEVICE (= normal API):")) {
        printf("the synced sequence does not give the normal API's scores\n");
        goto out;
    }
    printf("rknn cache sync sample OK\n");
    ret = 0;
out:
    if (input_mem != NULL) rknn_destroy_mem(ctx, input_mem);
    if (output_mem != NULL) rknn_destroy_mem(ctx, output_mem);
    if (ctx != 0) rknn_destroy(ctx);
    if (normal != 0) rknn_destroy(normal);
    free(images);
    return ret;
}
