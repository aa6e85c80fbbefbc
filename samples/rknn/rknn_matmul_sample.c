/*
 * The RKNN matmul library as the vendor's rknn_matmul_api_demo uses it (docs/rknn.md
 * "Matmul"): C = A x B for float16 A (M x K) and B (K x N) into float32 C, B handed to the
 * NPU in its native layout (rknn_B_normal_layout_to_native_layout), memory from
 * rknn_create_mem on the matmul context; then the LLM-style weight-only int4 product
 * (RKNN_FLOAT16_MM_INT4_TO_FLOAT32, B packed two int4 per byte, per-group scales set with
 * rknn_matmul_set_quant_params). Each answer is checked against a plain loop.
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

static int run_float16(void) {
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
    return bad != 0;
}

/* W4A16: B int4 in [-8, 7], scale of group g (32 rows of K) and column n at g * N4 + n. */
enum { M4 = 2, K4 = 64, N4 = 64, GROUP = 32 };
static int value_b4(int k, int n) { return (k * 3 + n * 5) % 16 - 8; }
static float scale_b4(int g, int n) { return 0.01f * (float)(1 + (g + n) % 5); }

static int run_int4_grouped(void) {
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 0;
    rknn_tensor_mem *a = NULL, *b = NULL, *c = NULL;
    rknn_quant_params q;
    float scales[(K4 / GROUP) * N4];
    int m, n, k, g, bad = 0, ret;

    memset(&info, 0, sizeof info);
    info.M = M4;
    info.K = K4;
    info.N = N4;
    info.type = RKNN_FLOAT16_MM_INT4_TO_FLOAT32;
    info.B_layout = RKNN_MM_LAYOUT_NORM;
    info.B_quant_type = RKNN_QUANT_TYPE_PER_GROUP_SYM;
    info.group_size = GROUP;
    ret = rknn_matmul_create(&ctx, &info, &io);
    if (ret != RKNN_SUCC) {
        fprintf(stderr, "rknn_matmul_create (int4) failed: %d\n", ret);
        return 1;
    }
    memset(&q, 0, sizeof q);
    memcpy(q.name, io.B.name, RKNN_MAX_NAME_LEN);
    for (g = 0; g < K4 / GROUP; ++g) {
        for (n = 0; n < N4; ++n) scales[g * N4 + n] = scale_b4(g, n);
    }
    q.scale = scales;
    q.scale_len = (K4 / GROUP) * N4;
    ret = rknn_matmul_set_quant_params(ctx, &q);
    a = rknn_create_mem(ctx, io.A.size);
    b = rknn_create_mem(ctx, io.B.size);
    c = rknn_create_mem(ctx, io.C.size);
    if (ret != RKNN_SUCC || a == NULL || b == NULL || c == NULL) {
        fprintf(stderr, "int4 setup failed: %d\n", ret);
        return 1;
    }
    for (m = 0; m < M4; ++m) {
        for (k = 0; k < K4; ++k) ((uint16_t*)a->virt_addr)[m * K4 + k] = to_half(value_a(m, k));
    }
    memset(b->virt_addr, 0, io.B.size); /* two per byte, even element in the low nibble */
    for (k = 0; k < K4; ++k) {
        for (n = 0; n < N4; ++n) {
            int i = k * N4 + n;
            ((uint8_t*)b->virt_addr)[i / 2] |= (uint8_t)((value_b4(k, n) & 0xF) << (i % 2 ? 4 : 0));
        }
    }
    ret = rknn_matmul_set_io_mem(ctx, a, &io.A);
    if (ret == RKNN_SUCC) ret = rknn_matmul_set_io_mem(ctx, b, &io.B);
    if (ret == RKNN_SUCC) ret = rknn_matmul_set_io_mem(ctx, c, &io.C);
    if (ret == RKNN_SUCC) ret = rknn_matmul_run(ctx);
    if (ret != RKNN_SUCC) {
        fprintf(stderr, "int4 matmul failed: %d\n", ret);
        return 1;
    }
    for (m = 0; m < M4; ++m) {
        for (n = 0; n < N4; ++n) {
            double want = 0;
            float got = ((const float*)c->virt_addr)[m * N4 + n];
            for (k = 0; k < K4; ++k) want += (double)value_a(m, k) * value_b4(k, n) * scale_b4(k / GROUP, n);
            if (fabs(got - want) > 1e-4 * (1 + fabs(want))) {
                fprintf(stderr, "int4 C[%d][%d] = %f, want %f\n", m, n, got, want);
                ++bad;
            }
        }
    }
    printf("W4A16 %s: A %ux%u, B %u bytes (int4), C %ux%u\n", get_matmul_type_string(info.type), io.A.dims[0],
           io.A.dims[1], io.B.size, io.C.dims[0], io.C.dims[1]);
    rknn_destroy_mem(ctx, a);
    rknn_destroy_mem(ctx, b);
    rknn_destroy_mem(ctx, c);
    rknn_matmul_destroy(ctx);
    return bad != 0;
}

int main(void) {
    if (run_float16() != 0 || run_int4_grouped() != 0) return 1;
    printf("rknn matmul sample OK\n");
    return 0;
}
