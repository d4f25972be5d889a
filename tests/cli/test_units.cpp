// Dimensioned values: SI and binary prefixes, and refusal of bare or mismatched units.
#include <catch2/catch.hpp>

#include "report/human_units.hpp"
#include "io/units_parse.hpp"

using roofline::io::Dimension;
using roofline::io::parse_quantity;

TEST_CASE("units: sizes take SI and binary prefixes") {
  CHECK(parse_quantity("80 GB", Dimension::bytes) == 80e9);
  CHECK(parse_quantity("80 GiB", Dimension::bytes) == 80.0 * 1024 * 1024 * 1024);
  CHECK(parse_quantity("512KiB", Dimension::bytes) == 512.0 * 1024);
}

TEST_CASE("units: bandwidths - compute rates and times") {
  CHECK(parse_quantity("2039 GB/s", Dimension::bandwidth) == 2039e9);
  CHECK(parse_quantity("2 TB/s", Dimension::bandwidth) == 2e12);
  CHECK(parse_quantity("312 TFLOPS", Dimension::flops_rate) == 312e12);
  CHECK(parse_quantity("312 TFLOP/s", Dimension::flops_rate) == 312e12);
  CHECK(parse_quantity("624 TOPS", Dimension::flops_rate) == 624e12);
  CHECK(parse_quantity("5 us", Dimension::time) == Approx(5e-6));
  CHECK(parse_quantity("50 ms", Dimension::time) == Approx(0.05));
}

TEST_CASE("units: powers in W and kW - a TDP of 700 W, a rack's 1.2 kW GPU") {
  CHECK(parse_quantity("700 W", Dimension::power) == 700);
  CHECK(parse_quantity("1.2 kW", Dimension::power) == 1200);
  CHECK_THROWS_WITH(parse_quantity("700 W", Dimension::bandwidth), Catch::Contains("is a power"));
  CHECK_THROWS_WITH(parse_quantity("700", Dimension::power), Catch::Contains("has no unit"));
}

TEST_CASE("units: refused with a reason") {
  CHECK_THROWS_WITH(parse_quantity("2039", Dimension::bandwidth), Catch::Contains("has no unit"));
  CHECK_THROWS_WITH(parse_quantity("80 GB", Dimension::bandwidth), Catch::Contains("is a size"));
  CHECK_THROWS_WITH(parse_quantity("100 Gb/s", Dimension::bandwidth), Catch::Contains("bits are not accepted"));
  CHECK_THROWS_WITH(parse_quantity("fast", Dimension::bandwidth), Catch::Contains("expected a number"));
  CHECK_THROWS_WITH(parse_quantity("inf TB/s", Dimension::bandwidth), Catch::Contains("expected a number"));
  CHECK_THROWS_WITH(parse_quantity("1e308 PB", Dimension::bytes), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(parse_quantity("3 GiFLOPS", Dimension::flops_rate), Catch::Contains("unknown unit"));
}

TEST_CASE("human units: three significant digits and the carry into the next prefix") {
  using roofline::report::si;
  CHECK(si(14e9, "B") == "14.0 GB");
  CHECK(si(7e-3, "s") == "7.00 ms");
  CHECK(si(312e12, "FLOP/s") == "312 TFLOP/s");
  CHECK(si(999.7e6, "B") == "1.00 GB");
  CHECK(si(0, "B") == "0 B");
}

TEST_CASE("human times: past 1000 s in minutes, hours and days, never Ms (read as milliseconds)") {
  using roofline::report::human;
  CHECK(human(roofline::Seconds(999)) == "999 s");
  CHECK(human(roofline::Seconds(1000)) == "16.7 min");
  CHECK(human(roofline::Seconds(86'400)) == "24.0 h");
  CHECK(human(roofline::Seconds(3.44e8)) == "3981 days");
  CHECK(human(roofline::Seconds(7e-3)) == "7.00 ms");
  CHECK(human(roofline::Seconds(999.7)) == "16.7 min");  // not "1.00 ks"
  CHECK(human(roofline::Seconds(8.64e14)) == "1e+10 days");
}
