// colour.cuh: how the fractal explorer colours a pixel. Edit it
// here and press Compile (Ctrl+Return): NVRTC compiles it with the
// rest of the kernel, and marks the lines of any errors.
//
// n: the smooth iteration count at which the point escaped (0 or
// more), or -1 for a point still bounded after max_iterations,
// inside the set. Returns red, green, blue and alpha, 0 to 255.
__device__ uchar4 colour(float n, int max_iterations)
{
    if (n < 0.0f)
        return make_uchar4(0, 0, 0, 255);

    // A cosine palette: three waves a little out of phase, one
    // cycle every 32 iterations.
    float t = n / 32.0f;
    float r = 0.5f + 0.5f * cosf(6.2831853f * (t + 0.00f));
    float g = 0.5f + 0.5f * cosf(6.2831853f * (t + 0.10f));
    float b = 0.5f + 0.5f * cosf(6.2831853f * (t + 0.20f));
    return make_uchar4((unsigned char) (255.0f * r + 0.5f),
                       (unsigned char) (255.0f * g + 0.5f),
                       (unsigned char) (255.0f * b + 0.5f), 255);
}
