/*
 * An RKNN application as Rockchip's model-zoo C demos write one (examples/<name>/cpp: read the
 * model file, rknn_init from the buffer, query the attributes, pick the input geometry by
 * fmt, set a UINT8 NHWC image, run, get float outputs, release, destroy), linked to
 * librknnrt.so unchanged. Usage: rknn_app_flow MODEL.om  (exit status 0 = pass).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn/rknn_api.h"

static unsigned char* read_file(const char* path, long* len) {
    FILE* f = fopen(path, "rb");
    unsigned char* buf = NULL;
    if (f == NULL) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = (unsigned char*)malloc((size_t)*len);
        if (buf != NULL && fread(buf, 1, (size_t)*len, f) != (size_t)*len) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    return buf;
}

int main(int argc, char** argv) {
    rknn_context ctx = 0;
    rknn_input_output_num io_num;
    rknn_tensor_attr in_attr, out_attr;
    rknn_input inputs[1];
    rknn_output outputs[1];
    unsigned char* model;
    unsigned char* img;
    long len = 0;
    uint32_t h, w, c, i, best = 0;
    float* y;
    int ret;

    if (argc != 2) return 2;
    model = read_file(argv[1], &len);
    if (model == NULL) return 2;
    ret = rknn_init(&ctx, model, (uint32_t)len, 0, NULL);
    free(model);
    if (ret < 0) { printf("rknn_init fail! ret=%d\n", ret); return 1; }
    if (rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io_num, sizeof(io_num)) != RKNN_SUCC) return 1;
    memset(&in_attr, 0, sizeof in_attr);
    memset(&out_attr, 0, sizeof out_attr);
    if (rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &in_attr, sizeof in_attr) != RKNN_SUCC) return 1;
    if (rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &out_attr, sizeof out_attr) != RKNN_SUCC) return 1;
    printf("inputs %u outputs %u; input %s fmt=%s type=%s dims=[%u, %u, %u, %u]; output n_elems=%u\n", io_num.n_input,
           io_num.n_output, in_attr.name, get_format_string(in_attr.fmt), get_type_string(in_attr.type),
           in_attr.dims[0], in_attr.dims[1], in_attr.dims[2], in_attr.dims[3], out_attr.n_elems);
    if (in_attr.fmt == RKNN_TENSOR_NCHW) {
        c = in_attr.dims[1]; h = in_attr.dims[2]; w = in_attr.dims[3];
    } else {
        h = in_attr.dims[1]; w = in_attr.dims[2]; c = in_attr.dims[3];
    }
    img = (unsigned char*)malloc(h * w * c);
    for (i = 0; i < h * w * c; ++i) img[i] = (unsigned char)((i * 7) % 256);
    memset(inputs, 0, sizeof inputs);
    memset(outputs, 0, sizeof outputs);
    inputs[0].index = 0;
    inputs[0].type = RKNN_TENSOR_UINT8;
    inputs[0].fmt = RKNN_TENSOR_NHWC;
    inputs[0].size = h * w * c;
    inputs[0].buf = img;
    if ((ret = rknn_inputs_set(ctx, io_num.n_input, inputs)) < 0) { printf("rknn_inputs_set fail! ret=%d\n", ret); return 1; }
    if ((ret = rknn_run(ctx, NULL)) < 0) { printf("rknn_run fail! ret=%d\n", ret); return 1; }
    outputs[0].want_float = 1;
    if ((ret = rknn_outputs_get(ctx, 1, outputs, NULL)) < 0) { printf("rknn_outputs_get fail! ret=%d\n", ret); return 1; }
    y = (float*)outputs[0].buf;
    if (outputs[0].size != out_attr.n_elems * sizeof(float)) return 1;
    for (i = 1; i < out_attr.n_elems; ++i) best = y[i] > y[best] ? i : best;
    printf("top-1: class %u (%f)\n", best, y[best]);
    if (rknn_outputs_release(ctx, 1, outputs) != RKNN_SUCC) return 1;
    if (rknn_destroy(ctx) != RKNN_SUCC) return 1;
    free(img);
    printf("rknn_app_flow: OK\n");
    return 0;
}
