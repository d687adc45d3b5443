"""A ROS 2 subscriber that is not swift-motion: a Cyclone DDS participant (PyPI's `cyclonedds`)
reading `rt/<namespace>/imu/data` and `imu/data_raw` with the type `sensor_msgs::msg::dds_::Imu_`,
`imu/mag` with `sensor_msgs::msg::dds_::MagneticField_`, `pressure` and `temperature` with
`FluidPressure_` and `Temperature_`, as rmw_cyclonedds_cpp names them;
each sample's CDR bytes as received decoded by `rosbags` (its own sensor_msgs definitions), one
JSON object a message on standard output. It ends `--idle` seconds after its last message, or
after `--seconds` in all. Run by ROSTests:

    python ros2_peer.py --domain 0 --namespace robot1 --seconds 20 --idle 1.5
"""
import argparse
import json
import sys
import time
from dataclasses import dataclass

from cyclonedds.core import InstanceState, Qos, Policy, SampleState, ViewState
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import array, float64, int32, uint32
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds._clayer import ddspy_take
from rosbags.typesys import Stores, get_typestore


# The ROS 2 IDL of sensor_msgs/msg/Imu under rmw_cyclonedds_cpp's names (from the .msg files in
# ros2/common_interfaces and ros2/rcl_interfaces), for the participant to match the writer.
@dataclass
class Time_(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32
    nanosec: uint32


@dataclass
class Header_(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time_
    frame_id: str


@dataclass
class Quaternion_(IdlStruct, typename="geometry_msgs::msg::dds_::Quaternion_"):
    x: float64
    y: float64
    z: float64
    w: float64


@dataclass
class Vector3_(IdlStruct, typename="geometry_msgs::msg::dds_::Vector3_"):
    x: float64
    y: float64
    z: float64


@dataclass
class Imu_(IdlStruct, typename="sensor_msgs::msg::dds_::Imu_"):
    header: Header_
    orientation: Quaternion_
    orientation_covariance: array[float64, 9]
    angular_velocity: Vector3_
    angular_velocity_covariance: array[float64, 9]
    linear_acceleration: Vector3_
    linear_acceleration_covariance: array[float64, 9]


@dataclass
class MagneticField_(IdlStruct, typename="sensor_msgs::msg::dds_::MagneticField_"):
    header: Header_
    magnetic_field: Vector3_
    magnetic_field_covariance: array[float64, 9]


@dataclass
class FluidPressure_(IdlStruct, typename="sensor_msgs::msg::dds_::FluidPressure_"):
    header: Header_
    fluid_pressure: float64
    variance: float64


@dataclass
class Temperature_(IdlStruct, typename="sensor_msgs::msg::dds_::Temperature_"):
    header: Header_
    temperature: float64
    variance: float64


def decoded(topic, data, typestore):
    if topic == "pressure":
        msg = typestore.deserialize_cdr(data, "sensor_msgs/msg/FluidPressure")
        fields = {"fluid_pressure": msg.fluid_pressure, "variance": msg.variance}
    elif topic == "temperature":
        msg = typestore.deserialize_cdr(data, "sensor_msgs/msg/Temperature")
        fields = {"temperature": msg.temperature, "variance": msg.variance}
    elif topic == "imu/mag":
        msg = typestore.deserialize_cdr(data, "sensor_msgs/msg/MagneticField")
        fields = {
            "magnetic_field": [msg.magnetic_field.x, msg.magnetic_field.y, msg.magnetic_field.z],
            "magnetic_field_covariance": [float(v) for v in msg.magnetic_field_covariance],
        }
    else:
        msg = typestore.deserialize_cdr(data, "sensor_msgs/msg/Imu")
        fields = {
            "orientation": [msg.orientation.x, msg.orientation.y, msg.orientation.z, msg.orientation.w],
            "orientation_covariance": [float(v) for v in msg.orientation_covariance],
            "angular_velocity": [msg.angular_velocity.x, msg.angular_velocity.y, msg.angular_velocity.z],
            "angular_velocity_covariance": [float(v) for v in msg.angular_velocity_covariance],
            "linear_acceleration": [msg.linear_acceleration.x, msg.linear_acceleration.y, msg.linear_acceleration.z],
            "linear_acceleration_covariance": [float(v) for v in msg.linear_acceleration_covariance],
        }
    return dict(topic=topic, stamp=[msg.header.stamp.sec, msg.header.stamp.nanosec], frame_id=msg.header.frame_id,
                encapsulation=list(data[:2]), **fields)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--domain", type=int, default=0)
    parser.add_argument("--namespace", default="")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--idle", type=float, default=1.5)
    args = parser.parse_args()

    typestore = get_typestore(Stores.ROS2_HUMBLE)
    participant = DomainParticipant(args.domain)
    prefix = "rt/" + "".join(part + "/" for part in args.namespace.split("/") if part)
    # Best effort takes a best-effort and a reliable writer alike; a deep history loses nothing between polls.
    qos = Qos(Policy.Reliability.BestEffort, Policy.History.KeepLast(1000), Policy.Durability.Volatile)
    readers = {}
    for name, kind in (("imu/data", Imu_), ("imu/data_raw", Imu_), ("imu/mag", MagneticField_),
                       ("pressure", FluidPressure_), ("temperature", Temperature_)):
        readers[name] = DataReader(participant, Topic(participant, prefix + name, kind), qos=qos)
    print(json.dumps({"ready": True}), flush=True)
    mask = SampleState.Any | ViewState.Any | InstanceState.Any
    start = time.monotonic()
    last = None
    while True:
        now = time.monotonic()
        if now - start > args.seconds or (last is not None and now - last > args.idle):
            break
        for name, reader in readers.items():
            for data, info in ddspy_take(reader._ref, mask, 1000):
                # The writer's end (unregistered, disposed) comes as a sample without data.
                if data is None or not info.valid_data:
                    continue
                last = time.monotonic()
                print(json.dumps(decoded(name, bytes(data), typestore)), flush=True)
        time.sleep(0.01)
    return 0


if __name__ == "__main__":
    sys.exit(main())
