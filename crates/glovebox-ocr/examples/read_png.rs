//! Reads a PNG screenshot as glovebox would a window with no tree, twice
//! (the second look reuses the first), and prints what it saw with times:
//! `cargo run --release -p glovebox-ocr --example read_png -- shot.png`.

use glovebox_model::WindowId;
use glovebox_platform::{RgbImage, SeenReader};
use std::time::Instant;

fn load(path: &str) -> RgbImage {
    let mut decoder =
        png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    // Grey pictures of fewer bits a pixel (a terminal's, as ImageMagick writes them) to bytes.
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.line_size / info.width as usize;
    let data: Vec<u8> = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .flat_map(|p| if channels < 3 { [p[0]; 3] } else { [p[0], p[1], p[2]] })
        .collect();
    RgbImage { width: info.width, height: info.height, data }
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let image = load(&paths[0]);
    let reader = glovebox_ocr::TesseractReader::new();
    println!("engine: {:?}", reader.ready());
    let window = WindowId { pid: 1, handle: 1 };
    let mut image = image;
    for look in 0..3 {
        if look == 2 {
            // A change inside the first field (a caret): that band is read again.
            if let Some(field) = reader
                .read(window, &image)
                .unwrap()
                .items
                .iter()
                .find(|i| i.kind == glovebox_model::SeenKind::Field)
            {
                let (x, y) = (field.bounds.x as u32 + 6, field.bounds.y as u32 + 5);
                for dy in 0..field.bounds.height - 10 {
                    let i = (((y + dy) * image.width + x) * 3) as usize;
                    image.data[i..i + 3].copy_from_slice(&[0, 0, 0]);
                }
            }
        }
        if look == 1 {
            // A second picture of the same window, when given: read as a later look.
            if let Some(next) = paths.get(1) {
                image = load(next);
            }
        }
        let started = Instant::now();
        let read = reader.read(window, &image).unwrap();
        println!(
            "look {look}: {:?}, {} rows read, {} items",
            started.elapsed(),
            read.rows_read,
            read.items.len()
        );
        if look != 1 || paths.len() > 1 {
            for item in &read.items {
                println!("  {:?} {:?} {:?}", item.kind, item.text, item.bounds);
            }
        }
    }
}
