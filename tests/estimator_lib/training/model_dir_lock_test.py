"""The model_dir lock is a lease: a live owner is refused, a dead one on any host taken over."""

import json
import os
import tempfile

import tensorflow as tf

from estimator_lib.training import model_dir_lock


class FakeClock:

    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now


class LeaseTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        self.model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        self.path = os.path.join(self.model_dir, model_dir_lock.LOCK_NAME)
        self.clock = FakeClock()

    def _lock(self, host, **kwargs):
        return model_dir_lock.model_dir_lock(
            self.model_dir, lease_secs=60, renew_secs=None, clock=self.clock,
            hostname=lambda: host, **kwargs)

    def _owner(self):
        with open(self.path) as f:
            return json.load(f)

    def test_a_live_owner_on_another_host_is_refused_until_its_lease_runs_out(self):
        with self._lock("host-a") as lease:
            self.clock.now += 59
            with self.assertRaisesRegex(model_dir_lock.ModelDirInUseError,
                                        r"in use by another training \(pid \d+ on host-a, "
                                        r"since .*, lease renewed 59 s ago"):
                with self._lock("host-b"):
                    pass
            lease.renew()  # host-a is still training: its lease starts again.
            self.clock.now += 59
            with self.assertRaises(model_dir_lock.ModelDirInUseError):
                with self._lock("host-b"):
                    pass
            self.clock.now += 2  # host-a died: no renewal for 61 s.
            with self.assertLogs("tensorflow", level="WARNING") as logs:
                with self._lock("host-b"):
                    self.assertEqual(self._owner()["host"], "host-b")
            self.assertIn("Taking over the model_dir lock", logs.output[0])
            self.assertFalse(os.path.exists(self.path))  # host-b released it.
        # host-a's release leaves alone a lock it no longer owns (here: none).
        self.assertFalse(os.path.exists(self.path))

    def test_a_stalled_owner_does_not_renew_a_lock_taken_over(self):
        with self._lock("host-a") as stalled:
            self.clock.now += 120
            with self.assertLogs("tensorflow", level="WARNING"):
                with self._lock("host-b"):
                    stalled.renew()
                    self.assertEqual(self._owner()["host"], "host-b")

    def test_on_this_host_the_owner_process_decides_not_the_lease(self):
        with open(self.path, "w") as f:
            json.dump({"pid": 12345, "host": "here", "renewed": 0}, f)  # Old lease, live pid.
        with self.assertRaises(model_dir_lock.ModelDirInUseError):
            with self._lock("here", pid_alive=lambda pid: True):
                pass
        self.clock.now = 1.0  # Fresh lease, dead pid.
        with self.assertLogs("tensorflow", level="WARNING"):
            with self._lock("here", pid_alive=lambda pid: False):
                self.assertEqual(self._owner()["pid"], os.getpid())

    def test_the_renewal_thread_refreshes_the_lease(self):
        with model_dir_lock.model_dir_lock(self.model_dir, renew_secs=0.01,
                                           clock=self.clock) as lease:
            first = self._owner()["renewed"]
            self.clock.now += 5
            lease._thread.join(timeout=0.2)  # pylint: disable=protected-access  (a bounded wait)
            self.assertEqual(self._owner()["renewed"], first + 5)
        self.assertFalse(os.path.exists(self.path))

    def test_owner_is_live(self):
        live = model_dir_lock.owner_is_live
        self.assertTrue(live({"host": "b", "renewed": 100}, host="a", now=150, lease_secs=60))
        self.assertFalse(live({"host": "b", "renewed": 100}, host="a", now=161, lease_secs=60))
        self.assertFalse(live({}, host="a", now=161, lease_secs=60))  # Unreadable: stale.


if __name__ == "__main__":
    tf.test.main()
