/*
 * Multi-core NPU use as the vendor's runtime offers it (seed 000 §5.3.2, docs/rknn.md
 * "Multi-core"), on an RK3588 model: one context per core mask (AUTO, 0, 1, 2, 0_1, 0_1_2,
 * ALL) runs the same input and must give the single-core answer; two contexts bound to
 * cores 1 and 2 run at once (non-blocking runs, then rknn_wait); RK3588's batch core num is
 * set; and each core's load is read with RKNN_QUERY_SVP_NPU_LOAD, the figures a board shows
 * in /sys/kernel/debug/rknpu/load.
 *   rknn_multi_core_sample MODEL   (a model compiled with svp_atc --soc_version=RK3588)
 * Prints "rknn multi-core sample OK" on success.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn/rknn_api.h"

#define N_MASKS 7
#define RUNS_PER_MASK 20

static unsigned char* read_file(const char* path, uint32_t* size) {
    FILE* f = fopen(path, "rb");
    unsigned char* data = NULL;
    long n;
    if (f == NULL) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = (unsigned char*)malloc((size_t)n);
        if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
            free(data);
            data = NULL;
        }
        *size = (uint32_t)n;
    }
    fclose(f);
    return data;
}

/* The model's first input as float32 of `n` elements, its first output as float32. */
typedef struct {
    rknn_context ctx;
    uint32_t in_elems, out_elems;
    float* out;
} Net;

static int open_net(Net* net, unsigned char* model, uint32_t size) {
    rknn_tensor_attr in_attr, out_attr;
    memset(net, 0, sizeof *net);
    if (rknn_init(&net->ctx, model, size, 0, NULL) != RKNN_SUCC) return -1;
    memset(&in_attr, 0, sizeof in_attr);
    memset(&out_attr, 0, sizeof out_attr);
    if (rknn_query(net->ctx, RKNN_QUERY_INPUT_ATTR, &in_attr, sizeof in_attr) != RKNN_SUCC) return -1;
    if (rknn_query(net->ctx, RKNN_QUERY_OUTPUT_ATTR, &out_attr, sizeof out_attr) != RKNN_SUCC) return -1;
    net->in_elems = in_attr.n_elems;
    net->out_elems = out_attr.n_elems;
    net->out = (float*)calloc(net->out_elems, sizeof(float));
    return net->out != NULL ? 0 : -1;
}

static int set_input(Net* net, const float* x) {
    rknn_input in;
    memset(&in, 0, sizeof in);
    in.index = 0;
    in.buf = (void*)x;
    in.size = net->in_elems * (uint32_t)sizeof(float);
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_NCHW;
    return rknn_inputs_set(net->ctx, 1, &in);
}

static int get_output(Net* net) {
    rknn_output out;
    memset(&out, 0, sizeof out);
    out.want_float = 1;
    out.is_prealloc = 1;
    out.buf = net->out;
    out.size = net->out_elems * (uint32_t)sizeof(float);
    return rknn_outputs_get(net->ctx, 1, &out, NULL);
}

static int same(const float* a, const float* b, uint32_t n) { return memcmp(a, b, n * sizeof(float)) == 0; }

static void print_load(rknn_context ctx, const char* when) {
    rknn_svp_npu_load load;
    if (rknn_query(ctx, RKNN_QUERY_SVP_NPU_LOAD, &load, sizeof load) == RKNN_SUCC) {
        printf("%-34s %s\n", when, load.text);
    }
}

int main(int argc, char** argv) {
    static const rknn_core_mask masks[N_MASKS] = {RKNN_NPU_CORE_AUTO, RKNN_NPU_CORE_0,   RKNN_NPU_CORE_1,
                                                  RKNN_NPU_CORE_2,    RKNN_NPU_CORE_0_1, RKNN_NPU_CORE_0_1_2,
                                                  RKNN_NPU_CORE_ALL};
    static const char* const names[N_MASKS] = {"AUTO", "0", "1", "2", "0_1", "0_1_2", "ALL"};
    uint32_t size = 0, i;
    unsigned char* model;
    Net ref, nets[N_MASKS], a, b;
    float* x;
    int m, r, ok = 1;
    rknn_run_extend ext;
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL (compiled with svp_atc --soc_version=RK3588)\n", argv[0]);
        return 2;
    }
    model = read_file(argv[1], &size);
    if (model == NULL) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    if (open_net(&ref, model, size) != 0) {
        fprintf(stderr, "rknn_init failed (see the log above)\n");
        return 1;
    }
    x = (float*)malloc(ref.in_elems * sizeof(float));
    for (i = 0; i < ref.in_elems; ++i) x[i] = (float)((i * 37u) % 101u) / 101.0f;
    /* The single-core answer: core 0 alone. */
    if (rknn_set_core_mask(ref.ctx, RKNN_NPU_CORE_0) != RKNN_SUCC || set_input(&ref, x) != RKNN_SUCC ||
        rknn_run(ref.ctx, NULL) != RKNN_SUCC || get_output(&ref) != RKNN_SUCC) {
        fprintf(stderr, "the reference run failed\n");
        return 1;
    }
    print_load(ref.ctx, "after one run on core 0:");

    for (m = 0; m < N_MASKS; ++m) {
        if (open_net(&nets[m], model, size) != 0 || rknn_set_core_mask(nets[m].ctx, masks[m]) != RKNN_SUCC) {
            fprintf(stderr, "context for core mask %s failed\n", names[m]);
            return 1;
        }
        for (r = 0; r < RUNS_PER_MASK; ++r) {
            if (set_input(&nets[m], x) != RKNN_SUCC || rknn_run(nets[m].ctx, NULL) != RKNN_SUCC ||
                get_output(&nets[m]) != RKNN_SUCC) {
                fprintf(stderr, "run on core mask %s failed\n", names[m]);
                return 1;
            }
            if (!same(nets[m].out, ref.out, ref.out_elems)) {
                fprintf(stderr, "core mask %s gave another answer than core 0\n", names[m]);
                ok = 0;
            }
        }
        printf("core mask %-6s %d runs, same answer as core 0\n", names[m], RUNS_PER_MASK);
    }
    print_load(ref.ctx, "after the masks (0_1_2 loads all):");

    /* Two contexts on cores 1 and 2 at once. */
    if (open_net(&a, model, size) != 0 || open_net(&b, model, size) != 0 ||
        rknn_set_core_mask(a.ctx, RKNN_NPU_CORE_1) != RKNN_SUCC ||
        rknn_set_core_mask(b.ctx, RKNN_NPU_CORE_2) != RKNN_SUCC) {
        fprintf(stderr, "contexts on cores 1 and 2 failed\n");
        return 1;
    }
    memset(&ext, 0, sizeof ext);
    ext.non_block = 1;
    for (r = 0; r < RUNS_PER_MASK; ++r) {
        if (set_input(&a, x) != RKNN_SUCC || set_input(&b, x) != RKNN_SUCC || rknn_run(a.ctx, &ext) != RKNN_SUCC ||
            rknn_run(b.ctx, &ext) != RKNN_SUCC || rknn_wait(a.ctx, NULL) != RKNN_SUCC ||
            rknn_wait(b.ctx, NULL) != RKNN_SUCC || get_output(&a) != RKNN_SUCC || get_output(&b) != RKNN_SUCC) {
            fprintf(stderr, "the concurrent runs failed\n");
            return 1;
        }
        if (!same(a.out, ref.out, ref.out_elems) || !same(b.out, ref.out, ref.out_elems)) ok = 0;
    }
    printf("cores 1 and 2: %d concurrent runs each, same answers\n", RUNS_PER_MASK);
    /* rknn_set_batch_core_num: an AUTO context's runs split across the first n cores. */
    if (rknn_set_batch_core_num(a.ctx, 2) != RKNN_SUCC || rknn_set_core_mask(a.ctx, RKNN_NPU_CORE_AUTO) != RKNN_SUCC ||
        set_input(&a, x) != RKNN_SUCC || rknn_run(a.ctx, NULL) != RKNN_SUCC || get_output(&a) != RKNN_SUCC ||
        !same(a.out, ref.out, ref.out_elems)) {
        fprintf(stderr, "the batch core num 2 run failed or differed\n");
        ok = 0;
    }
    print_load(ref.ctx, "at the end:");

    rknn_destroy(a.ctx);
    rknn_destroy(b.ctx);
    for (m = 0; m < N_MASKS; ++m) {
        rknn_destroy(nets[m].ctx);
        free(nets[m].out);
    }
    rknn_destroy(ref.ctx);
    free(a.out);
    free(b.out);
    free(ref.out);
    free(x);
    free(model);
    if (!ok) {
        fprintf(stderr, "rknn multi-core sample FAILED\n");
        return 1;
    }
    printf("rknn multi-core sample OK\n");
    return 0;
}
