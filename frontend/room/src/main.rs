//! Entry point of the live room's pages: mounts the app.

mod api;
mod app;
mod host;
mod live;
mod new_room;
mod phone;
mod projector;
mod seats;
mod section;

fn main() {
    leptos::mount::mount_to_body(app::App);
}
