"""A fake daily sunspot-number file for jeffheaton/app_deep_learning's t81_558_class_06_2_lstm.ipynb.

The notebook reads SN_d_tot_V2.0.csv (SILSO's daily total sunspot number; the recipe's edit points its URL line at the
local file in the run folder): ';'-separated, no header, 8 fields a row -- year; month; day; decimal year; sunspot
number (-1 = missing); its standard error; number of observations; a provisional flag. Written here: one row a day
from 1991-01-01 to 2001-12-31 (4018 rows). The first 365 rows (1991) have obs_num 0 and sn -1 (the notebook drops
everything up to the last obs_num == 0 row, as in the real file's early years); the rest is an 11-year cycle
(0-160) plus AR(1) day-to-day noise, clipped at 0. The notebook trains on 1992-1999 (2922 rows -> 2912 windows of
10 -> 91 batches of 32 an epoch) and validates on 2000-2001 (731 rows -> 721 windows -> 23 batches).
"""
import datetime
import sys
from pathlib import Path

import numpy as np

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    day, end = datetime.date(1991, 1, 1), datetime.date(2001, 12, 31)
    rows, noise, i = [], 0.0, 0
    while day <= end:
        dec_year = day.year + (day.timetuple().tm_yday - 0.5) / 365.25
        if day.year == 1991:
            sn, err, obs = -1, -1.0, 0
        else:
            noise = 0.9 * noise + rng.normal(0, 12)
            sn = int(max(0.0, 80 + 70 * np.sin(2 * np.pi * i / (11 * 365.25)) + noise))
            err, obs = round(float(rng.uniform(2, 15)), 1), int(rng.integers(10, 60))
        rows.append(f"{day.year};{day.month:02d};{day.day:02d};{dec_year:9.3f};{sn:4d};{err:5.1f};{obs:4d};1")
        day += datetime.timedelta(days=1)
        i += 1
    (Path(sys.argv[1]) / "SN_d_tot_V2.0.csv").write_text("\n".join(rows) + "\n")
