set -u
cd "$(dirname "$0")"
GLOVEBOX_FIXTURE_STATE=/tmp/mpx-probe-g4.json /usr/bin/python3 ../../testapps/fixture_gtk4.py --title "mpx gtk4" > /tmp/mpx-probe-g4.log 2>&1 &
sleep 3
W4=$(xdotool search --name "mpx gtk4" | head -1)
xdotool windowmove $W4 700 100; sleep 0.5
GLOVEBOX_FIXTURE_STATE=/tmp/mpx-probe-g3.json /usr/bin/python3 ../../testapps/fixture_gtk3.py --title "mpx user" > /tmp/mpx-probe-g3.log 2>&1 &
sleep 3
W3=$(xdotool search --name "mpx user" | head -1)
xdotool windowmove $W3 0 0; xdotool windowactivate $W3; sleep 0.5
xdotool mousemove 1500 900; sleep 0.2
eval $(xdotool getwindowgeometry --shell $W4)
SUB=$(python3 -c "import json; a=json.load(open('/tmp/mpx-probe-g4.json'))['allocations']['submit']; print(a[0]+a[2]//2, a[1]+a[3]//2)")
set -- $SUB
CX=$((X + $1)); CY=$((Y + $2))
echo "gtk4 at $X,$Y submit center $CX,$CY; clicks before $(python3 -c "import json; print(json.load(open('/tmp/mpx-probe-g4.json'))['clicks'])")"
echo "before: $(xdotool getmouselocation) active $(xprop -root _NET_ACTIVE_WINDOW | cut -d'#' -f2) stacking $(xprop -root _NET_CLIENT_LIST_STACKING | cut -d'#' -f2)"
./target/debug/mpx-probe $CX $CY
sleep 0.5
echo "after:  $(xdotool getmouselocation) active $(xprop -root _NET_ACTIVE_WINDOW | cut -d'#' -f2) stacking $(xprop -root _NET_CLIENT_LIST_STACKING | cut -d'#' -f2)"
echo "clicks after $(python3 -c "import json; print(json.load(open('/tmp/mpx-probe-g4.json'))['clicks'])")"
echo "W3=$W3 W4=$W4"
kill %1 %2
