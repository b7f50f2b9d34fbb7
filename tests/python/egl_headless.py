"""A headless GLES 3 context through EGL's device platform
(EGL_EXT_platform_device), for the GPU tests of graphics interoperability:
libEGL.so.1 and libGLESv2.so.2 are loaded here, with ctypes, by the test,
never by cugi. Textures, buffers and EGL images are made and read back as
an application would (glReadPixels through a framebuffer, glMapBufferRange:
GLES 3 has no glGetBufferSubData). Anything missing raises Unavailable with
the reason, for the test to skip with."""

import ctypes

EGL_PLATFORM_DEVICE_EXT = 0x313F
EGL_CUDA_DEVICE_NV = 0x323A
EGL_NONE = 0x3038
EGL_SURFACE_TYPE = 0x3033
EGL_PBUFFER_BIT = 0x0001
EGL_RENDERABLE_TYPE = 0x3040
EGL_OPENGL_ES3_BIT = 0x0040
EGL_RED_SIZE, EGL_GREEN_SIZE, EGL_BLUE_SIZE, EGL_ALPHA_SIZE = 0x3024, 0x3023, 0x3022, 0x3021
EGL_WIDTH, EGL_HEIGHT = 0x3057, 0x3056
EGL_OPENGL_ES_API = 0x30A0
EGL_CONTEXT_MAJOR_VERSION = 0x3098
EGL_EXTENSIONS = 0x3055
EGL_GL_TEXTURE_2D_KHR = 0x30B1
EGL_LINUX_DMA_BUF_EXT = 0x3270
EGL_LINUX_DRM_FOURCC_EXT = 0x3271
EGL_DMA_BUF_PLANE0_FD_EXT = 0x3272
EGL_DMA_BUF_PLANE0_OFFSET_EXT = 0x3273
EGL_DMA_BUF_PLANE0_PITCH_EXT = 0x3274
# DRM_FORMAT_ABGR8888: bytes R, G, B, A in memory, as GL_RGBA8 reads.
DRM_FORMAT_ABGR8888 = 0x34324241

GL_TEXTURE_2D = 0x0DE1
GL_RGBA8 = 0x8058
GL_RGBA = 0x1908
GL_UNSIGNED_BYTE = 0x1401
GL_FRAMEBUFFER = 0x8D40
GL_COLOR_ATTACHMENT0 = 0x8CE0
GL_FRAMEBUFFER_COMPLETE = 0x8CD5
GL_ARRAY_BUFFER = 0x8892
GL_DYNAMIC_DRAW = 0x88E8
GL_MAP_READ_BIT = 0x0001
GL_PACK_ALIGNMENT = 0x0D05

p = ctypes.c_void_p
EGLint = ctypes.c_int32
GLuint = ctypes.c_uint


class Unavailable(Exception):
    """What the machine lacks for the test."""


def _load(name):
    try:
        return ctypes.CDLL(name)
    except OSError as error:
        raise Unavailable(f'{name} cannot be loaded: {error}') from error


def _declare(library, name, restype, *argtypes):
    function = getattr(library, name)
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


def _attributes(*pairs):
    values = [value for pair in pairs for value in pair] + [EGL_NONE]
    return (EGLint * len(values))(*values)


class Headless:
    """A GLES 3 context current on the calling thread, on the EGL device
    that is CUDA device @cuda_ordinal where EGL_NV_device_cuda tells,
    else on the first device."""

    def __init__(self, cuda_ordinal=0):
        egl = _load('libEGL.so.1')
        self.gl = _load('libGLESv2.so.2')
        get_proc = _declare(egl, 'eglGetProcAddress', p, ctypes.c_char_p)

        def extension(name, restype, *argtypes):
            address = get_proc(name.encode())
            if not address:
                raise Unavailable(f'EGL lacks {name}')
            return ctypes.CFUNCTYPE(restype, *argtypes)(address)

        self.get_error = _declare(egl, 'eglGetError', EGLint)
        query_devices = extension('eglQueryDevicesEXT', ctypes.c_uint, EGLint, ctypes.POINTER(p),
                                  ctypes.POINTER(EGLint))
        get_platform_display = extension('eglGetPlatformDisplayEXT', p, ctypes.c_uint, p, ctypes.POINTER(EGLint))
        devices = (p * 16)()
        count = EGLint(0)
        if not query_devices(16, devices, ctypes.byref(count)) or count.value == 0:
            raise Unavailable('EGL lists no device (on the GPU machine, set __EGL_VENDOR_LIBRARY_FILENAMES '
                              'to NVIDIA\'s vendor file)')
        device = devices[0]
        try:
            query_attrib = extension('eglQueryDeviceAttribEXT', ctypes.c_uint, p, EGLint,
                                     ctypes.POINTER(ctypes.c_ssize_t))
            for candidate in devices[:count.value]:
                value = ctypes.c_ssize_t(-1)
                if query_attrib(candidate, EGL_CUDA_DEVICE_NV, ctypes.byref(value)) and value.value == cuda_ordinal:
                    device = candidate
                    break
        except Unavailable:
            pass
        self.display = get_platform_display(EGL_PLATFORM_DEVICE_EXT, device, None)
        initialize = _declare(egl, 'eglInitialize', ctypes.c_uint, p, ctypes.POINTER(EGLint),
                              ctypes.POINTER(EGLint))
        if not self.display or not initialize(self.display, None, None):
            raise Unavailable(f'eglInitialize failed on the device display (0x{self.get_error():x})')
        self.egl_extensions = _declare(egl, 'eglQueryString', ctypes.c_char_p, p, EGLint)(
            self.display, EGL_EXTENSIONS).decode().split()
        _declare(egl, 'eglBindAPI', ctypes.c_uint, ctypes.c_uint)(EGL_OPENGL_ES_API)
        config = p()
        n_configs = EGLint(0)
        _declare(egl, 'eglChooseConfig', ctypes.c_uint, p, ctypes.POINTER(EGLint), ctypes.POINTER(p), EGLint,
                 ctypes.POINTER(EGLint))(
            self.display,
            _attributes((EGL_SURFACE_TYPE, EGL_PBUFFER_BIT), (EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT),
                        (EGL_RED_SIZE, 8), (EGL_GREEN_SIZE, 8), (EGL_BLUE_SIZE, 8), (EGL_ALPHA_SIZE, 8)),
            ctypes.byref(config), 1, ctypes.byref(n_configs))
        if n_configs.value == 0:
            raise Unavailable('EGL has no GLES 3 pbuffer configuration on the device')
        self.context = _declare(egl, 'eglCreateContext', p, p, p, p, ctypes.POINTER(EGLint))(
            self.display, config, None, _attributes((EGL_CONTEXT_MAJOR_VERSION, 3)))
        # A 1x1 pbuffer: device displays have no windows, and not every
        # driver makes contexts current without a surface.
        self.surface = _declare(egl, 'eglCreatePbufferSurface', p, p, p, ctypes.POINTER(EGLint))(
            self.display, config, _attributes((EGL_WIDTH, 1), (EGL_HEIGHT, 1)))
        make_current = _declare(egl, 'eglMakeCurrent', ctypes.c_uint, p, p, p, p)
        if not self.context or not make_current(self.display, self.surface, self.surface, self.context):
            raise Unavailable(f'no GLES 3 context could be made current (0x{self.get_error():x})')
        self._egl = egl
        self._extension = extension
        self._declare_gl()

    def _declare_gl(self):
        gl = self.gl
        self.glGenTextures = _declare(gl, 'glGenTextures', None, ctypes.c_int, ctypes.POINTER(GLuint))
        self.glBindTexture = _declare(gl, 'glBindTexture', None, ctypes.c_uint, GLuint)
        self.glTexStorage2D = _declare(gl, 'glTexStorage2D', None, ctypes.c_uint, ctypes.c_int, ctypes.c_uint,
                                       ctypes.c_int, ctypes.c_int)
        self.glGenFramebuffers = _declare(gl, 'glGenFramebuffers', None, ctypes.c_int, ctypes.POINTER(GLuint))
        self.glBindFramebuffer = _declare(gl, 'glBindFramebuffer', None, ctypes.c_uint, GLuint)
        self.glFramebufferTexture2D = _declare(gl, 'glFramebufferTexture2D', None, ctypes.c_uint, ctypes.c_uint,
                                               ctypes.c_uint, GLuint, ctypes.c_int)
        self.glCheckFramebufferStatus = _declare(gl, 'glCheckFramebufferStatus', ctypes.c_uint, ctypes.c_uint)
        self.glPixelStorei = _declare(gl, 'glPixelStorei', None, ctypes.c_uint, ctypes.c_int)
        self.glReadPixels = _declare(gl, 'glReadPixels', None, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                     ctypes.c_int, ctypes.c_uint, ctypes.c_uint, p)
        self.glGenBuffers = _declare(gl, 'glGenBuffers', None, ctypes.c_int, ctypes.POINTER(GLuint))
        self.glBindBuffer = _declare(gl, 'glBindBuffer', None, ctypes.c_uint, GLuint)
        self.glBufferData = _declare(gl, 'glBufferData', None, ctypes.c_uint, ctypes.c_ssize_t, p, ctypes.c_uint)
        self.glMapBufferRange = _declare(gl, 'glMapBufferRange', p, ctypes.c_uint, ctypes.c_ssize_t,
                                         ctypes.c_ssize_t, ctypes.c_uint)
        self.glUnmapBuffer = _declare(gl, 'glUnmapBuffer', ctypes.c_ubyte, ctypes.c_uint)
        self.glFinish = _declare(gl, 'glFinish', None)
        self.glGetError = _declare(gl, 'glGetError', ctypes.c_uint)

    def check(self, what):
        error = self.glGetError()
        if error != 0:
            raise AssertionError(f'{what}: GL error 0x{error:x}')

    def texture(self, width, height):
        """A GL_RGBA8 texture of @width x @height: its name."""
        name = GLuint()
        self.glGenTextures(1, ctypes.byref(name))
        self.glBindTexture(GL_TEXTURE_2D, name)
        self.glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, width, height)
        self.check('glTexStorage2D')
        return name.value

    def read_texture(self, name, width, height):
        """The RGBA bytes of texture @name, rows bottom first as GL counts
        them (row y of the texture is row y here)."""
        framebuffer = GLuint()
        self.glGenFramebuffers(1, ctypes.byref(framebuffer))
        self.glBindFramebuffer(GL_FRAMEBUFFER, framebuffer)
        self.glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, name, 0)
        status = self.glCheckFramebufferStatus(GL_FRAMEBUFFER)
        if status != GL_FRAMEBUFFER_COMPLETE:
            raise AssertionError(f'the framebuffer of texture {name} is incomplete (0x{status:x})')
        out = ctypes.create_string_buffer(width * height * 4)
        self.glPixelStorei(GL_PACK_ALIGNMENT, 1)
        self.glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, out)
        self.check('glReadPixels')
        self.glBindFramebuffer(GL_FRAMEBUFFER, 0)
        return out.raw

    def buffer(self, data):
        """A GL buffer object holding @data (bytes): its name."""
        name = GLuint()
        self.glGenBuffers(1, ctypes.byref(name))
        self.glBindBuffer(GL_ARRAY_BUFFER, name)
        self.glBufferData(GL_ARRAY_BUFFER, len(data), data, GL_DYNAMIC_DRAW)
        self.check('glBufferData')
        return name.value

    def read_buffer(self, name, size):
        """The first @size bytes of buffer @name, through glMapBufferRange."""
        self.glBindBuffer(GL_ARRAY_BUFFER, name)
        address = self.glMapBufferRange(GL_ARRAY_BUFFER, 0, size, GL_MAP_READ_BIT)
        if not address:
            raise AssertionError(f'glMapBufferRange failed (0x{self.glGetError():x})')
        data = ctypes.string_at(address, size)
        self.glUnmapBuffer(GL_ARRAY_BUFFER)
        return data

    def _create_image(self, context, target, client_buffer, attributes):
        if 'EGL_KHR_image_base' not in self.egl_extensions:
            raise Unavailable('EGL lacks EGL_KHR_image_base')
        create = self._extension('eglCreateImageKHR', p, p, p, ctypes.c_uint, p, ctypes.POINTER(EGLint))
        image = create(self.display, context, target, client_buffer, attributes)
        if not image:
            raise Unavailable(f'eglCreateImageKHR (target 0x{target:x}) failed: EGL error 0x{self.get_error():x}')
        return image

    def image_of_texture(self, name):
        """An EGLImage of texture @name (EGL_KHR_gl_texture_2D_image), as an
        address."""
        return self._create_image(self.context, EGL_GL_TEXTURE_2D_KHR, ctypes.c_void_p(name), _attributes())

    def image_of_dma_buf(self, fd, offset, pitch, width, height):
        """An EGLImage of an RGBA dma-buf (EGL_EXT_image_dma_buf_import)."""
        if 'EGL_EXT_image_dma_buf_import' not in self.egl_extensions:
            raise Unavailable('EGL lacks EGL_EXT_image_dma_buf_import')
        return self._create_image(None, EGL_LINUX_DMA_BUF_EXT, None, _attributes(
            (EGL_WIDTH, width), (EGL_HEIGHT, height), (EGL_LINUX_DRM_FOURCC_EXT, DRM_FORMAT_ABGR8888),
            (EGL_DMA_BUF_PLANE0_FD_EXT, fd), (EGL_DMA_BUF_PLANE0_OFFSET_EXT, offset),
            (EGL_DMA_BUF_PLANE0_PITCH_EXT, pitch)))

    def texture_of_image(self, image):
        """A texture whose storage is EGLImage @image
        (GL_OES_EGL_image): its name."""
        target_texture = self._extension('glEGLImageTargetTexture2DOES', None, ctypes.c_uint, p)
        name = GLuint()
        self.glGenTextures(1, ctypes.byref(name))
        self.glBindTexture(GL_TEXTURE_2D, name)
        target_texture(GL_TEXTURE_2D, image)
        self.check('glEGLImageTargetTexture2DOES')
        return name.value
