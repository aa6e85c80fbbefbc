/* Multi-batch (seed 000 §5.6): a model converted for batch N (rknn-toolkit2's
 * build(rknn_batch_size=N); here subgraphs.input_size_list [[4,1,28,28]], lenet/run_lenet_demo.sh)
 * reports input and output sizes N times the batch-1 model's. Through the zero-copy API the
 * guide recommends, image k is written at k x input_size / N of the input memory and its
 * scores read at k x output_size / N of the output memory (§5.6.3, figure 5-15); the general
 * API takes the N images one after another as well. Check: every image's scores equal its
 * scores from the batch-1 model run image by image.
 *   rknn_multi_batch IMAGES.u8 COUNT BATCH_MODEL.rknn SINGLE_MODEL.rknn */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lenet/lenet_common.h"
#include "rknn_api.h"

#define TOLERANCE 1e-5f

static int query_attrs(rknn_context ctx, rknn_tensor_attr* input, rknn_tensor_attr* output) {
    memset(input, 0, sizeof *input);
    memset(output, 0, sizeof *output);
    if (rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, input, sizeof *input) != RKNN_SUCC ||
        rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, output, sizeof *output) != RKNN_SUCC) {
        printf("rknn_query(INPUT_ATTR / OUTPUT_ATTR) fail!\n");
        return -1;
    }
    dump_tensor_attr(input);
    dump_tensor_attr(output);
    return 0;
}

/* One batch of images through the bound memory: image k's rows (w_stride apart) at
 * k x input_size / batch, its scores from k x output_size / batch. */
static int run_batch_zero_copy(rknn_context ctx, const rknn_tensor_attr* input, rknn_tensor_mem* input_mem,
                               rknn_tensor_mem* output_mem, uint32_t output_size, uint32_t batch,
                               const unsigned char* images, float* scores) {
    uint32_t height = input->dims[1], width = input->dims[2], stride = input->w_stride ? input->w_stride : width;
    uint32_t input_size = input->n_elems / width * stride; /* UINT8 bytes, rows w_stride apart */
    uint32_t in_offset = input_size / batch, out_offset = output_size / batch;
    uint32_t k, h;
    int ret;
    for (k = 0; k < batch; ++k) {
        unsigned char* dst = (unsigned char*)input_mem->virt_addr + (size_t)k * in_offset;
        for (h = 0; h < height; ++h) {
            memcpy(dst + (size_t)h * stride, images + (size_t)k * LENET_PIXELS + (size_t)h * width, width);
        }
    }
    ret = rknn_run(ctx, NULL);
    if (ret < 0) {
        printf("rknn_run fail! ret=%d\n", ret);
        return -1;
    }
    for (k = 0; k < batch; ++k) {
        memcpy(scores + (size_t)k * LENET_CLASSES, (const char*)output_mem->virt_addr + (size_t)k * out_offset,
               LENET_CLASSES * sizeof(float));
    }
    return 0;
}

static int check(const char* api, int first, uint32_t batch, const float* scores, const float* single) {
    float worst = max_rel_diff(scores, single + (size_t)first * LENET_CLASSES, (size_t)batch * LENET_CLASSES);
    printf("%s, images %d..%u: largest difference from the batch-1 model %g\n", api, first, first + batch - 1, worst);
    if (worst > TOLERANCE) {
        printf("%s: the batch's scores differ from the batch-1 model's (> %g)\n", api, TOLERANCE);
        return -1;
    }
    return 0;
}

int main(int argc, char** argv) {
    rknn_context ctx = 0, single_ctx = 0;
    rknn_tensor_attr input, output, single_input, single_output;
    rknn_tensor_mem *input_mem = NULL, *output_mem = NULL;
    unsigned char* images = NULL;
    float *single = NULL, *scores = NULL;
    uint32_t batch, output_size;
    int count, k, ret = 1;
    if (argc != 5) {
        printf("usage: %s IMAGES.u8 COUNT BATCH_MODEL.rknn SINGLE_MODEL.rknn\n", argv[0]);
        return 2;
    }
    count = atoi(argv[2]);
    if ((images = load_images(argv[1], count)) == NULL || init_lenet(argv[3], 0, &ctx) != 0 ||
        init_lenet(argv[4], 0, &single_ctx) != 0) {
        goto out;
    }
    printf("batch model:\n");
    if (query_attrs(ctx, &input, &output) != 0) goto out;
    printf("batch-1 model:\n");
    if (query_attrs(single_ctx, &single_input, &single_output) != 0) goto out;
    batch = input.dims[0];
    /* §5.6.3: the sizes are the batch's multiple of the batch-1 model's. */
    if (batch < 2 || single_input.dims[0] != 1 || input.n_elems != batch * single_input.n_elems ||
        output.n_elems != batch * single_output.n_elems || output.n_elems != batch * LENET_CLASSES ||
        count % (int)batch != 0) {
        printf("the models are not batch %u and batch 1 of one network, or %d images are not whole batches\n", batch,
               count);
        goto out;
    }
    printf("rknn_batch_size=%u: input size %u = %u x %u, output elements %u = %u x %u\n", batch, input.size, batch,
           single_input.size, output.n_elems, batch, single_output.n_elems);

    single = (float*)malloc((size_t)count * LENET_CLASSES * sizeof(float));
    scores = (float*)malloc((size_t)batch * LENET_CLASSES * sizeof(float));
    if (single == NULL || scores == NULL) goto out;
    for (k = 0; k < count; ++k) {
        if (run_normal(single_ctx, images + (size_t)k * LENET_PIXELS, 1, single + (size_t)k * LENET_CLASSES) != 0) {
            goto out;
        }
    }
    if (max_rel_diff(single, single + LENET_CLASSES, LENET_CLASSES) < 1e-3f) {
        printf("images 0 and 1 have the same scores: the model's output does not depend on its input\n");
        goto out;
    }

    /* The general API: N images one after another in one buffer. */
    for (k = 0; k < count; k += (int)batch) {
        if (run_normal(ctx, images + (size_t)k * LENET_PIXELS, (int)batch, scores) != 0 ||
            check("general API", k, batch, scores, single) != 0) {
            goto out;
        }
    }

    /* Zero copy, as §5.6.2 recommends: UINT8 NHWC input, float32 output. */
    /* The model's input is float (size_with_stride counts 4 bytes an element); the memory
     * holds UINT8 pixels, which the NPU converts as it reads them. */
    output_size = output.n_elems * (uint32_t)sizeof(float);
    input_mem = rknn_create_mem(ctx, input.n_elems / input.dims[2] * (input.w_stride ? input.w_stride : input.dims[2]));
    output_mem = rknn_create_mem(ctx, output_size);
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
    for (k = 0; k < count; k += (int)batch) {
        if (run_batch_zero_copy(ctx, &input, input_mem, output_mem, output_size, batch,
                                images + (size_t)k * LENET_PIXELS, scores) != 0 ||
            check("zero-copy API", k, batch, scores, single) != 0) {
            goto out;
        }
    }
    printf("rknn multi batch sample OK\n");
    ret = 0;
out:
    if (input_mem != NULL) rknn_destroy_mem(ctx, input_mem);
    if (output_mem != NULL) rknn_destroy_mem(ctx, output_mem);
    if (ctx != 0) rknn_destroy(ctx);
    if (single_ctx != 0) rknn_destroy(single_ctx);
    free(single);
    free(scores);
    free(images);
    return ret;
}
