// Ranks that outnumber the cores they may run on, machine by machine, from each rank's
// "BOOT_ID CPU CPU ...": a pingpong between ranks that share a core times the scheduler.
#include <gtest/gtest.h>

#include "system/oversubscription.hpp"

namespace npgpu {
namespace {

TEST(Oversubscription, RanksThatOutnumberTheCoresOfTheirMachine) {
  EXPECT_EQ(oversubscription({"a 0 1", "a 0 1", "a 0 1", "b 0", "b 1"}), "3 ranks on 2 cores of one machine");
}

TEST(Oversubscription, NoneWhereEachMachineHasCoresEnough) {
  EXPECT_EQ(oversubscription({"a 0", "a 1", "b 0", "b 1"}), "") << "machines apart, as hosts with one boot id each";
  EXPECT_EQ(oversubscription({"a 0 1 2 3", "a 0 1 2 3"}), "");
}

TEST(Oversubscription, NoneWhereTheCoresAreUnknown) {
  EXPECT_EQ(oversubscription({"a", "a", "a"}), "") << "no affinity read: nothing is said";
}

TEST(MachineAndCores, ThisRanksBootIdThenTheCoresItMayRunOn) {
  const std::string text = machine_and_cores();
  ASSERT_NE(text.find(' '), std::string::npos) << text;
  EXPECT_EQ(oversubscription({text}), "") << "one rank never outnumbers its cores";
}

}  // namespace
}  // namespace npgpu
