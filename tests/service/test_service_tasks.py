"""A graceful stop ends even when a background task loses its cancellation (service.tasks.stop_task)."""

from __future__ import annotations

import asyncio

from service.tasks import stop_task


def test_a_task_that_loses_cancellations_is_cancelled_again_until_it_ends():
    lost = []

    async def stubborn() -> None:
        for _ in range(3):  # as a loop whose Redis call turned a cancellation into an error it catches
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                lost.append(1)

    async def main() -> bool:
        task = asyncio.create_task(stubborn())
        await asyncio.sleep(0.01)  # it runs
        return await stop_task(task, timeout=60)

    assert asyncio.run(main()) is True
    assert len(lost) == 3


def test_a_task_that_never_ends_is_given_up_after_its_time():
    async def main() -> tuple[bool, float]:
        release = asyncio.Event()

        async def deaf() -> None:
            while not release.is_set():
                try:
                    await asyncio.sleep(10)
                except asyncio.CancelledError:
                    pass

        task = asyncio.create_task(deaf(), name="deaf")
        await asyncio.sleep(0.01)
        loop = asyncio.get_running_loop()
        started = loop.time()
        stopped = await stop_task(task, timeout=0.5)
        took = loop.time() - started
        release.set()
        task.cancel()
        await asyncio.wait({task})
        return stopped, took

    stopped, took = asyncio.run(main())
    # it waited its time before giving up (that it gave up at all, the test's end shows: how soon, a busy
    # machine decides)
    assert stopped is False and took >= 0.5
