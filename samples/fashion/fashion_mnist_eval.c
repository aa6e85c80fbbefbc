/*
 * Evaluates a Fashion-MNIST classifier compiled by svp_atc on the labelled test set, the
 * way a vendor application runs a model: load the .om from NPU memory, build the datasets
 * (data input, task_buf, work_buf; outputs) from the model description, execute, read the
 * logits. Two streams alternate asynchronous executions, each with its own datasets.
 *
 *   fashion_mnist_eval MODEL.om DATASET_DIR [COUNT] [MIN_ACCURACY_PERCENT]
 *
 * DATASET_DIR holds t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz (Debian
 * dataset-fashion-mnist: /usr/share/datasets/fashion-mnist). Input: [1,1,28,28] float32,
 * pixel/255. Prints top-1 accuracy and throughput; exits 1 below MIN_ACCURACY_PERCENT.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime in C99 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "acl/svp_acl.h"
#include "acl/svp_acl_mdl.h"

#define CHECK(call)                                                                             \
    do {                                                                                        \
        svp_acl_error e_ = (call);                                                              \
        if (e_ != SVP_ACL_SUCCESS) {                                                            \
            fprintf(stderr, "%s failed: %d %s\n", #call, (int)e_, svp_acl_get_recent_err_msg()); \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static unsigned char *read_gz(const char *path, size_t *size)
{
    gzFile f = gzopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s (install Debian's dataset-fashion-mnist)\n", path);
        exit(1);
    }
    size_t cap = 1 << 20, n = 0;
    unsigned char *buf = malloc(cap);
    int r;
    while ((r = gzread(f, buf + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)r;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    gzclose(f);
    *size = n;
    return buf;
}

static void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    void *dev = NULL;
    CHECK(svp_acl_rt_malloc(&dev, *size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    if (fread(dev, 1, *size, f) != *size) {
        fprintf(stderr, "short read of %s\n", path);
        exit(1);
    }
    fclose(f);
    return dev;
}

/* One stream's datasets: the vendor's §2.2 procedure, every buffer from the model desc. */
typedef struct {
    svp_acl_rt_stream stream;
    svp_acl_mdl_dataset *in, *out;
    void *image, *logits;
    size_t image_stride, logits_stride;
    int pending;  /* index of the image in flight, -1 none */
} Lane;

static void make_lane(Lane *l, svp_acl_mdl_desc *desc)
{
    CHECK(svp_acl_rt_create_stream(&l->stream));
    l->in = svp_acl_mdl_create_dataset();
    l->out = svp_acl_mdl_create_dataset();
    size_t n_in = svp_acl_mdl_get_num_inputs(desc);
    for (size_t i = 0; i < n_in; ++i) {
        size_t size = svp_acl_mdl_get_input_size_by_index(desc, i);
        size_t stride = svp_acl_mdl_get_input_default_stride(desc, i);
        void *p = NULL;
        CHECK(svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
        memset(p, 0, size);
        CHECK(svp_acl_mdl_add_dataset_buffer(l->in, svp_acl_create_data_buffer(p, size, stride)));
        if (i == 0) {
            l->image = p;
            l->image_stride = stride;
        }
    }
    size_t size = svp_acl_mdl_get_output_size_by_index(desc, 0);
    CHECK(svp_acl_rt_malloc(&l->logits, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    l->logits_stride = svp_acl_mdl_get_output_default_stride(desc, 0);
    CHECK(svp_acl_mdl_add_dataset_buffer(l->out, svp_acl_create_data_buffer(l->logits, size, l->logits_stride)));
    l->pending = -1;
}

static int argmax10(const float *v)
{
    int best = 0;
    for (int k = 1; k < 10; ++k) {
        if (v[k] > v[best]) best = k;
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s MODEL.om DATASET_DIR [COUNT] [MIN_ACCURACY_PERCENT]\n", argv[0]);
        return 2;
    }
    int count = argc > 3 ? atoi(argv[3]) : 10000;
    double min_accuracy = argc > 4 ? atof(argv[4]) : 0.0;
    char path[4096];
    size_t img_size = 0, lbl_size = 0;
    snprintf(path, sizeof path, "%s/t10k-images-idx3-ubyte.gz", argv[2]);
    unsigned char *images = read_gz(path, &img_size);
    snprintf(path, sizeof path, "%s/t10k-labels-idx1-ubyte.gz", argv[2]);
    unsigned char *labels = read_gz(path, &lbl_size);
    if (img_size < 16 + 784u * (size_t)count || lbl_size < 8 + (size_t)count || count <= 0) {
        fprintf(stderr, "the dataset holds fewer than %d images\n", count);
        return 1;
    }

    CHECK(svp_acl_init(NULL));
    CHECK(svp_acl_rt_set_device(0));
    size_t model_size = 0;
    void *model = read_file(argv[1], &model_size);
    uint32_t id = 0;
    CHECK(svp_acl_mdl_load_from_mem(model, model_size, &id));
    svp_acl_mdl_desc *desc = svp_acl_mdl_create_desc();
    CHECK(svp_acl_mdl_get_desc(desc, id));
    svp_acl_mdl_io_dims dims;
    CHECK(svp_acl_mdl_get_input_dims(desc, 0, &dims));
    if (dims.dim_count != 4 || dims.dims[2] != 28 || dims.dims[3] != 28 ||
        svp_acl_mdl_get_output_size_by_index(desc, 0) < 10 * sizeof(float)) {
        fprintf(stderr, "the model is not a [1,1,28,28] → [1,10] classifier\n");
        return 1;
    }

    Lane lanes[2];
    make_lane(&lanes[0], desc);
    make_lane(&lanes[1], desc);
    int correct = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < count + 2; ++i) {
        Lane *l = &lanes[i % 2];
        if (l->pending >= 0) {  /* collect the lane's previous image */
            CHECK(svp_acl_rt_synchronize_stream(l->stream));
            if (argmax10((const float *)l->logits) == labels[8 + l->pending]) ++correct;
            l->pending = -1;
        }
        if (i >= count) continue;
        const unsigned char *px = images + 16 + 784u * (size_t)i;
        for (int r = 0; r < 28; ++r) {
            float *row = (float *)((char *)l->image + (size_t)r * l->image_stride);
            for (int c = 0; c < 28; ++c) row[c] = px[r * 28 + c] / 255.0f;
        }
        CHECK(svp_acl_mdl_execute_async(id, l->in, l->out, l->stream));
        l->pending = i;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    double accuracy = 100.0 * correct / count;
    printf("fashion-mnist: %d of %d test images correct: top-1 %.2f %% (%.0f images/s on 2 streams)\n", correct, count,
           accuracy, count / secs);

    for (int k = 0; k < 2; ++k) {
        CHECK(svp_acl_rt_destroy_stream(lanes[k].stream));
        for (size_t i = 0; i < svp_acl_mdl_get_dataset_num_buffers(lanes[k].in); ++i) {
            svp_acl_data_buffer *b = svp_acl_mdl_get_dataset_buffer(lanes[k].in, i);
            svp_acl_rt_free(svp_acl_get_data_buffer_addr(b));
            svp_acl_destroy_data_buffer(b);
        }
        svp_acl_data_buffer *o = svp_acl_mdl_get_dataset_buffer(lanes[k].out, 0);
        svp_acl_rt_free(svp_acl_get_data_buffer_addr(o));
        svp_acl_destroy_data_buffer(o);
        svp_acl_mdl_destroy_dataset(lanes[k].in);
        svp_acl_mdl_destroy_dataset(lanes[k].out);
    }
    svp_acl_mdl_destroy_desc(desc);
    CHECK(svp_acl_mdl_unload(id));
    svp_acl_rt_free(model);
    CHECK(svp_acl_rt_reset_device(0));
    CHECK(svp_acl_finalize());
    free(images);
    free(labels);
    if (accuracy < min_accuracy) {
        printf("below the expected %.2f %%\n", min_accuracy);
        return 1;
    }
    return 0;
}
