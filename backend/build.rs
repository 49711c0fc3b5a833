//! The migrations are built into the binary (`sqlx::migrate!`): a new or changed one must
//! rebuild it.

fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
