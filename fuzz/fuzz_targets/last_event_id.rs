#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| phantom_tests::fuzzing::last_event_id(data));
