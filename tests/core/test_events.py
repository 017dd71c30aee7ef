"""The event bus keeps order across threads and across a worker process."""

from __future__ import annotations

import threading

from workbench.core.events import EventBus, JobProgress, Notice


def test_events_from_many_threads_arrive_whole_and_in_order() -> None:
    bus = EventBus()
    seen: list[tuple[str, int]] = []
    bus.subscribe(JobProgress, lambda e: seen.append((e.job_id, e.data["n"])))
    threads = [
        threading.Thread(
            target=lambda name=f"t{i}": [
                bus.publish(JobProgress(job_id=name, data={"n": n})) for n in range(500)
            ]
        )
        for i in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 2000
    for i in range(4):
        assert [n for name, n in seen if name == f"t{i}"] == list(range(500))


def test_subscription_by_type_custom_delivery_and_unsubscribe() -> None:
    bus = EventBus()
    queued: list[object] = []
    notices: list[Notice] = []
    unsubscribe = bus.subscribe(Notice, notices.append)
    bus.subscribe(JobProgress, lambda e: None, deliver=lambda handler, e: queued.append(e))
    bus.publish(Notice(text="hello"))
    bus.publish(JobProgress(job_id="j"))
    unsubscribe()
    bus.publish(Notice(text="unheard"))
    assert [n.text for n in notices] == ["hello"]
    assert [type(e).__name__ for e in queued] == ["JobProgress"]


def test_a_failing_subscriber_does_not_stop_the_others() -> None:
    bus = EventBus()
    seen: list[str] = []

    def broken(_: Notice) -> None:
        raise RuntimeError("subscriber bug")

    bus.subscribe(Notice, broken)
    bus.subscribe(Notice, lambda e: seen.append(e.text))
    bus.publish(Notice(text="still delivered"))
    assert seen == ["still delivered"]


def test_a_slow_subscriber_does_not_block_another_threads_publish() -> None:
    """Thread A's publish sits in a subscriber that waits; thread B's publish still returns."""
    bus = EventBus()
    inside_slow = threading.Event()
    release_slow = threading.Event()
    heard: list[str] = []

    def slow(event: JobProgress) -> None:
        if event.job_id == "slow":
            inside_slow.set()
            release_slow.wait(10)
        heard.append(event.job_id)

    bus.subscribe(JobProgress, slow)
    publisher_a = threading.Thread(target=lambda: bus.publish(JobProgress(job_id="slow")))
    publisher_a.start()
    assert inside_slow.wait(5)
    publisher_b = threading.Thread(target=lambda: bus.publish(JobProgress(job_id="fast")))
    publisher_b.start()
    publisher_b.join(2)
    blocked = publisher_b.is_alive()
    release_slow.set()
    publisher_a.join(5)
    publisher_b.join(5)
    assert not blocked, "a publish from another thread waited for a slow subscriber"
    assert heard == ["fast", "slow"]
