// fractal.cu: the fractal explorer's kernel, one thread a pixel.
//
// It iterates z = z² + c: for the Mandelbrot set from z = 0 with c the pixel,
// for a Julia set from z = the pixel with c fixed. The escape is turned into a
// smooth iteration count, which colour() from colour.cuh, the part the app
// lets you edit, makes into a pixel.
//
// The app compiles this with --fmad=false: without fused multiply-adds every
// step is one IEEE double operation in the order written here, so a CPU
// reference doing the same operations (check_render.py) gets the same escape
// iterations, bit for bit, and any difference left is colour()'s float maths.
#include "colour.cuh"

// Escaping past |z| = 16 rather than 2 keeps the smooth count accurate.
#define BAILOUT_SQUARED 256.0

// Renders the rows [first_row, first_row + rows) of a width × height RGBA
// image; image points at row 0. The view is centred on centre_re + i·centre_im,
// one pixel is pixel_size wide in the complex plane and the imaginary axis
// points up.
extern "C" __global__ void fractal(uchar4 *image, int width, int height,
                                   int first_row, int rows,
                                   double centre_re, double centre_im,
                                   double pixel_size, int julia,
                                   double julia_re, double julia_im,
                                   int max_iterations)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = first_row + blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= first_row + rows)
        return;

    double re = centre_re + (x - 0.5 * width + 0.5) * pixel_size;
    double im = centre_im - (y - 0.5 * height + 0.5) * pixel_size;
    double zr = julia ? re : 0.0;
    double zi = julia ? im : 0.0;
    double cr = julia ? julia_re : re;
    double ci = julia ? julia_im : im;

    int i = 0;
    double r2 = zr * zr + zi * zi;
    while (i < max_iterations && r2 <= BAILOUT_SQUARED) {
        double next_re = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = next_re;
        r2 = zr * zr + zi * zi;
        i++;
    }

    // The smooth (continuous) count: i + 1 - log2(log |z|), 0 at the least.
    float n = -1.0f;
    if (i < max_iterations)
        n = (float) fmax (i + 1 - log2 (0.5 * log (r2)), 0.0);
    image[(size_t) y * width + x] = colour (n, max_iterations);
}
