/*
 * A zero-copy RKNN application as the model zoo's zero-copy demos write one (RV1106 and
 * yolov8 ZERO_COPY builds): query the native attributes, bind a UINT8 NHWC input buffer
 * whose rows follow w_stride and native output buffers sized from size_with_stride
 * (rknn_create_mem + rknn_set_io_mem), run, read the outputs in place; linked to
 * librknnrt.so unchanged. The same image through rknn_inputs_set / rknn_outputs_get on a
 * second context must give the same bytes. Usage: rknn_zero_copy_app MODEL.om (0 = pass).
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

#define CHECK(expr) do { int r_ = (expr); if (r_ != RKNN_SUCC) { printf("%s failed: %d\n", #expr, r_); return 1; } } while (0)

int main(int argc, char** argv) {
    rknn_context ctx = 0, ref = 0;
    rknn_tensor_attr in_attr, out_attr, ref_out;
    rknn_tensor_mem* in_mem;
    rknn_tensor_mem* out_mem;
    rknn_input input;
    rknn_output output;
    unsigned char* model;
    unsigned char* img;
    long len = 0;
    uint32_t h, w, c, y;
    int ok;

    if (argc != 2) return 2;
    model = read_file(argv[1], &len);
    if (model == NULL) return 2;
    CHECK(rknn_init(&ctx, model, (uint32_t)len, 0, NULL));
    CHECK(rknn_init(&ref, model, (uint32_t)len, 0, NULL));
    free(model);

    memset(&in_attr, 0, sizeof in_attr);
    memset(&out_attr, 0, sizeof out_attr);
    CHECK(rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &in_attr, sizeof in_attr));
    CHECK(rknn_query(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, &out_attr, sizeof out_attr));
    printf("native input %s fmt=%s dims=[%u, %u, %u, %u] w_stride=%u size_with_stride=%u\n", in_attr.name,
           get_format_string(in_attr.fmt), in_attr.dims[0], in_attr.dims[1], in_attr.dims[2], in_attr.dims[3],
           in_attr.w_stride, in_attr.size_with_stride);
    if (in_attr.fmt != RKNN_TENSOR_NHWC) return 1;
    h = in_attr.dims[1]; w = in_attr.dims[2]; c = in_attr.dims[3];
    img = (unsigned char*)malloc(h * w * c);
    for (y = 0; y < h * w * c; ++y) img[y] = (unsigned char)((y * 7) % 256);

    /* Zero copy: the image as UINT8 NHWC, each row w_stride pixels wide. */
    in_attr.type = RKNN_TENSOR_UINT8;
    in_mem = rknn_create_mem(ctx, in_attr.size_with_stride);
    out_mem = rknn_create_mem(ctx, out_attr.size_with_stride);
    if (in_mem == NULL || out_mem == NULL) return 1;
    for (y = 0; y < h; ++y) {
        memcpy((unsigned char*)in_mem->virt_addr + y * in_attr.w_stride * c, img + y * w * c, w * c);
    }
    CHECK(rknn_set_io_mem(ctx, in_mem, &in_attr));
    CHECK(rknn_set_io_mem(ctx, out_mem, &out_attr));
    CHECK(rknn_run(ctx, NULL));

    /* The normal path on the second context. */
    memset(&input, 0, sizeof input);
    memset(&output, 0, sizeof output);
    memset(&ref_out, 0, sizeof ref_out);
    input.type = RKNN_TENSOR_UINT8;
    input.fmt = RKNN_TENSOR_NHWC;
    input.size = h * w * c;
    input.buf = img;
    CHECK(rknn_inputs_set(ref, 1, &input));
    CHECK(rknn_run(ref, NULL));
    CHECK(rknn_query(ref, RKNN_QUERY_OUTPUT_ATTR, &ref_out, sizeof ref_out));
    CHECK(rknn_outputs_get(ref, 1, &output, NULL));
    ok = out_attr.fmt == ref_out.fmt && output.size == out_attr.size_with_stride &&
         memcmp(output.buf, out_mem->virt_addr, output.size) == 0;
    printf("output fmt=%s size_with_stride=%u: %s\n", get_format_string(out_attr.fmt), out_attr.size_with_stride,
           ok ? "same bytes as rknn_outputs_get" : "DIFFERENT from rknn_outputs_get");
    CHECK(rknn_outputs_release(ref, 1, &output));
    CHECK(rknn_destroy_mem(ctx, in_mem));
    CHECK(rknn_destroy_mem(ctx, out_mem));
    CHECK(rknn_destroy(ctx));
    CHECK(rknn_destroy(ref));
    free(img);
    if (!ok) return 1;
    printf("rknn_zero_copy_app: OK\n");
    return 0;
}
