//! Tesseract's C API, opened at run time from `libtesseract.so.5` (Debian's
//! `libtesseract5`, with `tesseract-ocr-eng`): the only unsafe code of this
//! crate. One [`Engine`] lives on one thread (the reader's worker) and is
//! never shared; what leaves it is the TSV text Tesseract writes, parsed in
//! safe code ([`crate::tsv`]).

use crate::rows::Segmentation;
use libloading::Library;
use std::ffi::{c_char, c_int, c_uchar, c_void, CStr};

type Create = unsafe extern "C" fn() -> *mut c_void;
type Init3 = unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char) -> c_int;
type SetPageSegMode = unsafe extern "C" fn(*mut c_void, c_int);
type SetImage = unsafe extern "C" fn(*mut c_void, *const c_uchar, c_int, c_int, c_int, c_int);
type SetSourceResolution = unsafe extern "C" fn(*mut c_void, c_int);
type SetVariable = unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char) -> c_int;
type GetTsvText = unsafe extern "C" fn(*mut c_void, c_int) -> *mut c_char;
type DeleteText = unsafe extern "C" fn(*const c_char);
type Delete = unsafe extern "C" fn(*mut c_void);
type SetOmpInt = unsafe extern "C" fn(c_int);

/// Tesseract's page segmentation mode 3: find blocks and lines by itself.
const PSM_AUTO: c_int = 3;
/// Mode 6: one uniform block of text.
const PSM_SINGLE_BLOCK: c_int = 6;
/// The resolution screen text is drawn at; without it Tesseract guesses per image.
const SCREEN_PPI: c_int = 96;

/// Why no engine could be made.
#[derive(Debug, Clone)]
pub(crate) struct EngineMissing(pub(crate) String);

/// One Tesseract instance with the English model loaded.
pub(crate) struct Engine {
    api: *mut c_void,
    set_page_seg_mode: SetPageSegMode,
    /// The mode last set.
    segmentation: Segmentation,
    set_image: SetImage,
    set_source_resolution: SetSourceResolution,
    get_tsv_text: GetTsvText,
    delete_text: DeleteText,
    delete: Delete,
    // Last: the functions above point into it, so it is dropped after `Drop::drop` ran.
    _library: Library,
}

/// The library names tried, newest first.
const LIBRARIES: [&str; 2] = ["libtesseract.so.5", "libtesseract.so.4"];

impl Engine {
    /// Opens the library and loads the English model. Must be called on
    /// the thread that will use the engine: OpenMP's dynamic thread count,
    /// which keeps recognition on this thread instead of spinning threads
    /// a two-core machine does not have (measured: 1.3 s against 0.2 s for
    /// one 1280×800 page), is a setting of the calling thread.
    pub(crate) fn open() -> Result<Engine, EngineMissing> {
        let mut errors = vec![];
        let library = LIBRARIES
            .iter()
            .find_map(|name| {
                // SAFETY: loading runs the library's initialisers; libtesseract's
                // (and libgomp's, leptonica's) have no preconditions on the caller.
                unsafe { Library::new(name) }.map_err(|e| errors.push(e.to_string())).ok()
            })
            .ok_or_else(|| {
                EngineMissing(format!(
                    "Tesseract is not installed (install libtesseract5 and tesseract-ocr-eng): {}",
                    errors.join("; ")
                ))
            })?;
        // SAFETY: each symbol is looked up with the signature capi.h declares for it
        // (Tesseract 4 and 5 share them); the library outlives the copies (held in `Engine`).
        unsafe {
            let sym = |name: &[u8]| -> Result<*const c_void, EngineMissing> {
                library.get::<*const c_void>(name).map(|s| *s).map_err(|e| {
                    EngineMissing(format!(
                        "libtesseract lacks {}: {e}",
                        String::from_utf8_lossy(name)
                    ))
                })
            };
            let create: Create = std::mem::transmute(sym(b"TessBaseAPICreate\0")?);
            let init: Init3 = std::mem::transmute(sym(b"TessBaseAPIInit3\0")?);
            let set_psm: SetPageSegMode = std::mem::transmute(sym(b"TessBaseAPISetPageSegMode\0")?);
            let set_variable: SetVariable = std::mem::transmute(sym(b"TessBaseAPISetVariable\0")?);
            let delete: Delete = std::mem::transmute(sym(b"TessBaseAPIDelete\0")?);
            let engine = Engine {
                api: create(),
                set_page_seg_mode: set_psm,
                segmentation: Segmentation::Page,
                set_image: std::mem::transmute::<*const c_void, SetImage>(sym(
                    b"TessBaseAPISetImage\0",
                )?),
                set_source_resolution: std::mem::transmute::<*const c_void, SetSourceResolution>(
                    sym(b"TessBaseAPISetSourceResolution\0")?,
                ),
                get_tsv_text: std::mem::transmute::<*const c_void, GetTsvText>(sym(
                    b"TessBaseAPIGetTsvText\0",
                )?),
                delete_text: std::mem::transmute::<*const c_void, DeleteText>(sym(
                    b"TessDeleteText\0",
                )?),
                delete,
                _library: library,
            };
            if engine.api.is_null() {
                return Err(EngineMissing("TessBaseAPICreate returned nothing".into()));
            }
            // A null data path: Tesseract's own (TESSDATA_PREFIX or where its package put it).
            if init(engine.api, std::ptr::null(), c"eng".as_ptr()) != 0 {
                return Err(EngineMissing(
                    "Tesseract found no English model (install tesseract-ocr-eng)".into(),
                ));
            }
            set_psm(engine.api, PSM_AUTO);
            // Its progress and warnings would otherwise go to glovebox's stderr (an MCP log).
            set_variable(engine.api, c"debug_file".as_ptr(), c"/dev/null".as_ptr());
            // libgomp is loaded with libtesseract; opening it again only counts a reference.
            if let Ok(gomp) = Library::new("libgomp.so.1") {
                if let Ok(set_dynamic) = gomp.get::<SetOmpInt>(b"omp_set_dynamic\0") {
                    set_dynamic(1);
                }
                // One thread per engine: the pool runs an engine per core, and OpenMP's
                // own team beside each would spin on the cores the others read on.
                if let Ok(set_threads) = gomp.get::<SetOmpInt>(b"omp_set_num_threads\0") {
                    set_threads(1);
                }
            }
            Ok(engine)
        }
    }

    /// Reads `grey` (one byte a pixel, `width` × `height`) as `segmentation`
    /// says and answers Tesseract's TSV: one row per page, block, paragraph,
    /// line and word.
    pub(crate) fn read_tsv(
        &mut self,
        grey: &[u8],
        width: u32,
        height: u32,
        segmentation: Segmentation,
    ) -> String {
        assert_eq!(grey.len(), width as usize * height as usize, "a grey image of its size");
        if width == 0 || height == 0 {
            return String::new();
        }
        if segmentation != self.segmentation {
            let mode = match segmentation {
                Segmentation::Uniform => PSM_SINGLE_BLOCK,
                Segmentation::Page => PSM_AUTO,
            };
            // SAFETY: `api` was made by TessBaseAPICreate and initialised; the mode is
            // one of capi.h's TessPageSegMode values.
            unsafe { (self.set_page_seg_mode)(self.api, mode) };
            self.segmentation = segmentation;
        }
        // SAFETY: `api` was made by TessBaseAPICreate and initialised; `grey`
        // holds width × height bytes and outlives the call (Tesseract copies
        // the image in SetImage); the text GetTsvText returns is freed with
        // TessDeleteText exactly once, after it was copied.
        unsafe {
            (self.set_image)(
                self.api,
                grey.as_ptr(),
                width as c_int,
                height as c_int,
                1,
                width as c_int,
            );
            (self.set_source_resolution)(self.api, SCREEN_PPI);
            let text = (self.get_tsv_text)(self.api, 0);
            if text.is_null() {
                return String::new();
            }
            let owned = CStr::from_ptr(text).to_string_lossy().into_owned();
            (self.delete_text)(text);
            owned
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // SAFETY: `api` came from TessBaseAPICreate and is deleted once, here.
        unsafe { (self.delete)(self.api) }
    }
}
