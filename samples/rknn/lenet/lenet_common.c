#include "lenet_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned char* load_images(const char* path, int count) {
    size_t bytes = (size_t)count * LENET_PIXELS;
    unsigned char* data = (unsigned char*)malloc(bytes);
    FILE* f = fopen(path, "rb");
    if (data == NULL || f == NULL || fread(data, 1, bytes, f) != bytes) {
        printf("cannot read %d images of 28x28 from %s\n", count, path);
        if (f != NULL) fclose(f);
        free(data);
        return NULL;
    }
    fclose(f);
    return data;
}

void dump_tensor_attr(const rknn_tensor_attr* attr) {
    printf("  index=%u, name=%s, n_dims=%u, dims=[%u, %u, %u, %u, %u], n_elems=%u, size=%u, fmt=%s, type=%s, "
           "qnt_type=%s, zp=%d, scale=%f, w_stride=%u, size_with_stride=%u\n",
           attr->index, attr->name, attr->n_dims, attr->dims[0], attr->dims[1], attr->dims[2], attr->dims[3],
           attr->dims[4], attr->n_elems, attr->size, get_format_string(attr->fmt), get_type_string(attr->type),
           get_qnt_type_string(attr->qnt_type), attr->zp, attr->scale, attr->w_stride, attr->size_with_stride);
}

int init_lenet(const char* model, uint32_t flags, rknn_context* ctx) {
    rknn_input_output_num io_num;
    int ret = rknn_init(ctx, (void*)model, 0, flags, NULL);
    if (ret != RKNN_SUCC) {
        printf("rknn_init(%s) fail! ret=%d\n", model, ret);
        return -1;
    }
    ret = rknn_query(*ctx, RKNN_QUERY_IN_OUT_NUM, &io_num, sizeof io_num);
    if (ret != RKNN_SUCC || io_num.n_input != 1 || io_num.n_output != 1) {
        printf("model input num: %u, output num: %u (ret=%d): the LeNet has one of each\n", io_num.n_input,
               io_num.n_output, ret);
        return -1;
    }
    return 0;
}

int run_normal(rknn_context ctx, const unsigned char* images, int batch, float* scores) {
    rknn_input input;
    rknn_output output;
    int ret;
    memset(&input, 0, sizeof input);
    input.index = 0;
    input.type = RKNN_TENSOR_UINT8;
    input.fmt = RKNN_TENSOR_NHWC;
    input.size = (uint32_t)batch * LENET_PIXELS;
    input.buf = (void*)images;
    ret = rknn_inputs_set(ctx, 1, &input);
    if (ret < 0) {
        printf("rknn_inputs_set fail! ret=%d\n", ret);
        return -1;
    }
    ret = rknn_run(ctx, NULL);
    if (ret < 0) {
        printf("rknn_run fail! ret=%d\n", ret);
        return -1;
    }
    memset(&output, 0, sizeof output);
    output.index = 0;
    output.want_float = 1;
    ret = rknn_outputs_get(ctx, 1, &output, NULL);
    if (ret < 0) {
        printf("rknn_outputs_get fail! ret=%d\n", ret);
        return -1;
    }
    if (output.size != (uint32_t)batch * LENET_CLASSES * sizeof(float)) {
        printf("output size %u, expected %d images x %d float scores\n", output.size, batch, LENET_CLASSES);
        rknn_outputs_release(ctx, 1, &output);
        return -1;
    }
    memcpy(scores, output.buf, output.size);
    rknn_outputs_release(ctx, 1, &output);
    return 0;
}

float max_rel_diff(const float* a, const float* b, size_t n) {
    float worst = 0.0f;
    size_t i;
    for (i = 0; i < n; ++i) {
        float scale = fabsf(b[i]) > 1.0f ? fabsf(b[i]) : 1.0f;
        float d = fabsf(a[i] - b[i]) / scale;
        if (isnan(d)) return HUGE_VALF;
        if (d > worst) worst = d;
    }
    return worst;
}
