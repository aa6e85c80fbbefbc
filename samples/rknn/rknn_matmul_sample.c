/*
 * The RKNN matmul library as the vendor's rknn_matmul_api_demo uses it (docs/rknn.md
 * "Matmul"): C = A x B for float16 A (M x K) and B (K x N) into float32 C, B handed to the
 * NPU in its native layout (rknn_B_normal_layout_to_native_layout), memory from
 * rknn_create_mem on the matmul context. The answer is checked against a plain loop.
 * Prints "rknn matmul sample OK" on success.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_matmul_api.h"

enum { M = 4, K = 64, N = 32 };

/* float -> IEEE half for the small integers and halves used here (exact). */
static uint16_t to_half(float f) {
    uint32_t x;
    uint32_t sign, exp, man;
    memcpy(&x, &f, sizeof x);
    sign = (x >> 16) & 0x8000u;
    if ((x & 0x7fffffffu) == 0) return (uint16_t)sign;
    exp = ((x >> 23) & 0xffu) - 127u + 15u;
    man = (x >> 13) & 0x3ffu;
    return (uint16_t)(sign | (exp << 10) | man);
}

static float value_a(int m, int k) { return (float)((m * 7 + k * 3) % 9 - 4) * 0.5f; }
static float value_b(int k, int n) { return (float)((k * 5 + n * 11) % 7 - 3); }

int main(void) {
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 0;
    rknn_tensor_mem *a = NULL, *b = NULL, *c = NULL;
    uint16_t* b_normal;
    int m, n, k, bad = 0, ret;

    memset(&info, 0, sizeof info);
    info.M = M;
    info.K = K;
    info.N = N;
    info.type = RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32;
    info.B_layout = RKNN_MM_LAYOUT_NATIVE;
    info.AC_layout = RKNN_MM_LAYOUT_NORM;
    ret = rknn_matmul_create(&ctx, &info, &io);
    if (ret != RKNN_SUCC) {
        fprintf(stderr, "rknn_matmul_create failed: %d\n", ret);
        return 1;
    }
    printf("A %ux%u, B native %ux%ux%ux%u, C %ux%u (%s)\n", io.A.dims[0], io.A.dims[1], io.B.dims[0], io.B.dims[1],
           io.B.dims[2], io.B.dims[3], io.C.dims[0], io.C.dims[1], get_matmul_type_string(info.type));
    a = rknn_create_mem(ctx, io.A.size);
    b = rknn_create_mem(ctx, io.B.size);
    c = rknn_create_mem(ctx, io.C.size);
    b_normal = (uint16_t*)malloc(sizeof(uint16_t) * K * N);
    if (a == NULL || b == NULL || c == NULL || b_normal == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (m = 0; m < M; ++m) {
        for (k = 0; k < K; ++k) ((uint16_t*)a->virt_addr)[m * K + k] = to_half(value_a(m, k));
    }
    for (k = 0; k < K; ++k) {
        for (n = 0; n < N; ++n) b_normal[k * N + n] = to_half(value_b(k, n));
    }
    ret = rknn_B_normal_layout_to_native_layout(b_normal, b->virt_addr, K, N, &info);
    if (ret == RKNN_SUCC) ret = rknn_matmul_set_io_mem(ctx, a, &io.A);
    if (ret == RKNN_SUCC) ret = rknn_matmul_set_io_mem(ctx, b, &io.B);
    if (ret == RKNN_SUCC) ret = rknn_matmul_set_io_mem(ctx, c, &io.C);
    if (ret == RKNN_SUCC) ret = rknn_matmul_run(ctx);
    if (ret != RKNN_SUCC) {
        fprintf(stderr, "matmul failed: %d\n", ret);
        return 1;
    }
    for (m = 0; m < M; ++m) {
        for (n = 0; n < N; ++n) {
            double want = 0;
            float got = ((const float*)c->virt_addr)[m * N + n];
            for (k = 0; k < K; ++k) want += (double)value_a(m, k) * value_b(k, n);
            if (fabs(got - want) > 1e-3) {
                fprintf(stderr, "C[%d][%d] = %f, want %f\n", m, n, got, want);
                ++bad;
            }
        }
    }
    free(b_normal);
    rknn_destroy_mem(ctx, a);
    rknn_destroy_mem(ctx, b);
    rknn_destroy_mem(ctx, c);
    rknn_matmul_destroy(ctx);
    if (bad != 0) return 1;
    printf("rknn matmul sample OK\n");
    return 0;
}
