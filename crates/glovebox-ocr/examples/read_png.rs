//! Reads a PNG screenshot as glovebox would a window with no tree, twice
//! (the second look reuses the first), and prints what it saw with times:
//! `cargo run --release -p glovebox-ocr --example read_png -- shot.png`.

use glovebox_model::WindowId;
use glovebox_platform::{RgbImage, SeenReader};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("a PNG path");
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.line_size / info.width as usize;
    let data: Vec<u8> =
        buf[..info.buffer_size()].chunks_exact(channels).flat_map(|p| [p[0], p[1], p[2]]).collect();
    let image = RgbImage { width: info.width, height: info.height, data };
    let reader = glovebox_ocr::TesseractReader::new();
    println!("engine: {:?}", reader.ready());
    let window = WindowId { pid: 1, xid: 1 };
    for look in 0..2 {
        let started = Instant::now();
        let read = reader.read(window, &image).unwrap();
        println!(
            "look {look}: {:?}, {} rows read, {} items",
            started.elapsed(),
            read.rows_read,
            read.items.len()
        );
        if look == 0 {
            for item in &read.items {
                println!("  {:?} {:?} {:?}", item.kind, item.text, item.bounds);
            }
        }
    }
}
