"""A home opened while another tab is current shows a fitted graph once its tab is chosen."""

from __future__ import annotations

from hermes_studio.main_window import MainWindow


def filled_fraction(view) -> float:
    """How much of the canvas's shorter side the whole map spans on screen."""
    rect = view.content_rect()
    top_left = view.mapFromScene(view.vb.mapViewToScene(rect.topLeft()))
    bottom_right = view.mapFromScene(view.vb.mapViewToScene(rect.bottomRight()))
    width, height = abs(bottom_right.x() - top_left.x()), abs(bottom_right.y() - top_left.y())
    return max(width / view.width(), height / view.height())


def test_the_graph_is_fitted_after_opening_a_home_on_another_tab(demo_home, qtbot):
    window = MainWindow(demo_home, view="memory")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    try:
        qtbot.waitUntil(lambda: window.graph.ready, timeout=20000)
        window.set_view("graph")
        view = window.graph.view
        qtbot.waitUntil(lambda: view.isVisible() and view.width() > 300)
        qtbot.waitUntil(lambda: filled_fraction(view) > 0.85, timeout=3000)
        assert filled_fraction(view) <= 1.01  # and all of it on screen
        # fitted for the canvas it is on: fitting again changes neither the zoom nor the glyphs
        qtbot.wait(50)
        scale, camera = view._size_scale, view.vb.viewRect()
        view.fit()
        assert view._size_scale == scale
        assert abs(view.vb.viewRect().width() - camera.width()) < 0.02 * camera.width()
        # a camera the person moved is theirs: a resize does not refit it
        view.begin_camera_move()
        view.vb.scaleBy((0.5, 0.5))
        zoomed = view.vb.viewRect()
        window.resize(window.width() - 80, window.height())
        qtbot.wait(100)
        assert view.vb.viewRect().width() < 0.8 * view.content_rect().width()
        assert zoomed.width() < view.content_rect().width()
    finally:
        window.close()
