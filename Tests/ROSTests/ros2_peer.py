"""A ROS 2 subscriber that is not swift-motion: a Cyclone DDS participant (PyPI's `cyclonedds`)
reading `rt/<topic>` with the type `sensor_msgs::msg::dds_::Imu_` as rmw_cyclonedds_cpp names it,
each sample's CDR bytes decoded by `rosbags` (its own sensor_msgs/msg/Imu definition), one JSON
object a message on standard output. Run by ROSTests:

    python ros2_peer.py --domain 0 --topic imu/data --seconds 6
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--domain", type=int, default=0)
    parser.add_argument("--topic", default="imu/data")
    parser.add_argument("--seconds", type=float, default=5)
    args = parser.parse_args()

    typestore = get_typestore(Stores.ROS2_HUMBLE)
    participant = DomainParticipant(args.domain)
    topic = Topic(participant, "rt/" + args.topic, Imu_)
    # Best effort takes a best-effort and a reliable writer alike; a deep history loses nothing between polls.
    qos = Qos(Policy.Reliability.BestEffort, Policy.History.KeepLast(1000), Policy.Durability.Volatile)
    reader = DataReader(participant, topic, qos=qos)
    print(json.dumps({"ready": True}), flush=True)
    mask = SampleState.Any | ViewState.Any | InstanceState.Any
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        for data, _info in ddspy_take(reader._ref, mask, 1000):
            if data is None:
                continue
            msg = typestore.deserialize_cdr(bytes(data), "sensor_msgs/msg/Imu")
            print(json.dumps({
                "stamp": [msg.header.stamp.sec, msg.header.stamp.nanosec],
                "frame_id": msg.header.frame_id,
                "orientation": [msg.orientation.x, msg.orientation.y, msg.orientation.z, msg.orientation.w],
                "orientation_covariance": [float(v) for v in msg.orientation_covariance],
                "angular_velocity": [msg.angular_velocity.x, msg.angular_velocity.y, msg.angular_velocity.z],
                "linear_acceleration": [msg.linear_acceleration.x, msg.linear_acceleration.y, msg.linear_acceleration.z],
                "encapsulation": list(bytes(data)[:2]),
            }), flush=True)
        time.sleep(0.01)
    return 0


if __name__ == "__main__":
    sys.exit(main())
