#!/usr/bin/python3
"""Device telemetry and Cugi.DeviceMonitor through the typelib, without a
GPU: over the stand-in driver's devices (fake-cuda-devices, CUGI_LIBCUDA)
and the stand-in NVML (fake-nvml, CUGI_LIBNVML), whose readings come from
FAKE_NVML_* environment variables read on every call."""

import os
import subprocess
import sys
import unittest

import gi

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402


class TestReadings(unittest.TestCase):
    def setUp(self):
        self.dev = Cugi.Device.get(0)

    def test_readings(self):
        self.assertEqual(self.dev.get_temperature(), 41)
        self.assertEqual(self.dev.get_power_usage(), 123456)
        self.assertEqual(self.dev.get_clock(Cugi.DeviceClock.SM), 1980)
        self.assertEqual(self.dev.get_clock(Cugi.DeviceClock.MEMORY), 2619)
        self.assertEqual(self.dev.get_utilization(), (37, 12))
        self.assertEqual(self.dev.get_pcie_link(), (4, 16, 5, 16))
        self.assertEqual(self.dev.get_pcie_throughput(), (1200, 3400))

    def test_nvlink_and_processes(self):
        self.assertEqual(self.dev.get_nvlink_states(), [True, True, False, True])
        self.assertEqual(Cugi.Device.get(1).get_nvlink_states(), [])
        self.assertEqual(self.dev.get_process_memory().unpack(),
                         {4000: 1 << 20, 4001: 2 << 20, 4002: 3 << 20})

    def test_errors(self):
        os.environ['FAKE_NVML_TEMPERATURE'] = 'unsupported'
        try:
            with self.assertRaises(GLib.Error) as caught:
                self.dev.get_temperature()
        finally:
            del os.environ['FAKE_NVML_TEMPERATURE']
        self.assertTrue(caught.exception.matches(Cugi.error_quark(), Cugi.Error.NOT_SUPPORTED))
        self.assertIn('nvmlDeviceGetTemperature', caught.exception.message)
        self.assertEqual(self.dev.get_temperature(), 41)

    def test_no_nvml(self):
        """In a process of its own: NVML is loaded once per process."""
        script = ('import gi; gi.require_version("Cugi", "1.0"); from gi.repository import Cugi, GLib\n'
                  'try:\n'
                  '    Cugi.DeviceMonitor.new(Cugi.Device.get(0), 0)\n'
                  'except GLib.Error as e:\n'
                  '    assert e.matches(Cugi.error_quark(), Cugi.Error.NOT_AVAILABLE), e.message\n'
                  '    print(e.message)\n')
        env = dict(os.environ, CUGI_LIBNVML='/nonexistent/libnvidia-ml.so.1')
        out = subprocess.run([sys.executable, '-c', script], env=env, check=True,
                             capture_output=True, text=True).stdout
        self.assertIn('libnvidia-ml.so.1', out)
        self.assertIn('CUGI_LIBNVML', out)


class TestMonitor(unittest.TestCase):
    def test_notifies_changes_only(self):
        monitor = Cugi.DeviceMonitor.new(Cugi.Device.get(0), 0)
        self.assertEqual(monitor.props.temperature, 41)
        self.assertEqual(monitor.props.gpu_utilization, 37)
        self.assertIsNone(monitor.props.error)
        notified = []
        monitor.connect('notify', lambda m, pspec: notified.append(pspec.name))
        monitor.update()
        self.assertEqual(notified, [])
        os.environ['FAKE_NVML_POWER'] = '200000'
        try:
            monitor.update()
        finally:
            del os.environ['FAKE_NVML_POWER']
        self.assertEqual(notified, ['power-usage'])
        self.assertEqual(monitor.props.power_usage, 200000)

    def test_error_property(self):
        monitor = Cugi.DeviceMonitor.new(None, 0)
        os.environ['FAKE_NVML_SM_CLOCK'] = 'lost'
        try:
            with self.assertRaises(GLib.Error):
                monitor.update()
            self.assertIsNotNone(monitor.props.error)
            self.assertIn('nvmlDeviceGetClockInfo', monitor.props.error.message)
        finally:
            del os.environ['FAKE_NVML_SM_CLOCK']
        monitor.update()
        self.assertIsNone(monitor.props.error)

    def test_polls_in_main_loop(self):
        loop = GLib.MainLoop()
        monitor = Cugi.DeviceMonitor.new(Cugi.Device.get(0), 5)
        seen = []

        def on_temperature(m, pspec):
            seen.append(m.props.temperature)
            loop.quit()

        monitor.connect('notify::temperature', on_temperature)
        os.environ['FAKE_NVML_TEMPERATURE'] = '70'
        try:
            loop.run()
        finally:
            del os.environ['FAKE_NVML_TEMPERATURE']
        self.assertEqual(seen, [70])
        monitor.props.interval = 0
        self.assertEqual(monitor.get_interval(), 0)


if __name__ == '__main__':
    unittest.main(verbosity=2)
