//! Dragging a step of the timeline with a pointer: a mouse, a pen or a finger (pointer events
//! with the pointer captured, never HTML5 drag and drop, which touch screens do not send). The
//! column under the pointer is read from the step headers' boxes, so a step can be dropped into
//! any column of its lane, an empty cell too; the timeline scrolls when the pointer nears an edge.

use wasm_bindgen::JsCast;

/// A drag in progress: which entry, which pointer, where it started, and the column it is over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drag {
    pub from: usize,
    pub pointer: i32,
    pub x0: f64,
    pub y0: f64,
    /// Past the few pixels that tell a drag from a tap.
    pub moved: bool,
    pub dx: f64,
    /// The column (entry index) under the pointer.
    pub over: Option<usize>,
}

/// How far a pointer travels before a press becomes a drag, in CSS pixels.
const SLOP: f64 = 8.0;

impl Drag {
    pub fn start(from: usize, ev: &web_sys::PointerEvent) -> Drag {
        Drag {
            from,
            pointer: ev.pointer_id(),
            x0: ev.client_x().into(),
            y0: ev.client_y().into(),
            moved: false,
            dx: 0.0,
            over: None,
        }
    }

    /// The drag after the pointer moved to `ev`.
    pub fn moved_to(self, ev: &web_sys::PointerEvent) -> Drag {
        let (x, y): (f64, f64) = (ev.client_x().into(), ev.client_y().into());
        let moved = self.moved || (x - self.x0).hypot(y - self.y0) > SLOP;
        if moved {
            autoscroll(x);
        }
        Drag {
            moved,
            dx: x - self.x0,
            over: if moved { column_at(x) } else { None },
            ..self
        }
    }
}

/// Captures the pointer on the element it went down on, so the drag follows it anywhere.
pub fn capture(ev: &web_sys::PointerEvent) {
    if let Some(element) = ev
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    {
        let _ = element.set_pointer_capture(ev.pointer_id());
    }
}

fn timeline() -> Option<web_sys::Element> {
    web_sys::window()?
        .document()?
        .query_selector("[data-testid=\"timeline\"]")
        .ok()?
}

/// The column whose header spans `x` (clamped to the first and the last).
pub fn column_at(x: f64) -> Option<usize> {
    let headers = timeline()?.query_selector_all(".tl-step").ok()?;
    let mut best: Option<(f64, usize)> = None;
    for i in 0..headers.length() {
        let Some(header) = headers
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        let Some(index) = header
            .get_attribute("data-index")
            .and_then(|v| v.parse::<usize>().ok())
        else {
            continue;
        };
        let rect = header.get_bounding_client_rect();
        if x >= rect.left() && x < rect.right() {
            return Some(index);
        }
        let distance = (x - rect.left()).abs().min((x - rect.right()).abs());
        if best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, index));
        }
    }
    best.map(|(_, index)| index)
}

/// Scrolls the timeline's box when the pointer nears its left or right edge.
fn autoscroll(x: f64) {
    let Some(scroller) = timeline().and_then(|t| t.parent_element()) else {
        return;
    };
    let rect = scroller.get_bounding_client_rect();
    let edge = 36.0;
    if x > rect.right() - edge {
        scroller.set_scroll_left(scroller.scroll_left() + 16);
    } else if x < rect.left() + edge {
        scroller.set_scroll_left(scroller.scroll_left() - 16);
    }
}

/// Keeps the playhead inside the timeline's box (its lane labels aside), scrolling the box
/// sideways only: the page itself does not move.
pub fn reveal_playhead() {
    let Some(timeline) = timeline() else { return };
    let Some(scroller) = timeline
        .parent_element()
        .and_then(|p| p.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return;
    };
    let Some(playhead) = timeline
        .query_selector(".tl-playhead")
        .ok()
        .flatten()
        .and_then(|p| p.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return;
    };
    let label = timeline
        .query_selector(".tl-corner")
        .ok()
        .flatten()
        .map(|c| c.get_bounding_client_rect().width())
        .unwrap_or(0.0) as i32;
    let at = playhead.offset_left();
    let (left, width) = (scroller.scroll_left(), scroller.client_width());
    let margin = 48;
    if at < left + label + margin {
        scroller.set_scroll_left((at - label - margin).max(0));
    } else if at > left + width - margin {
        scroller.set_scroll_left(at - width + margin * 2);
    }
}
