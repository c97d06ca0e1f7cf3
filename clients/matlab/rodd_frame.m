function f = rodd_frame(c, id)
%RODD_FRAME  The latest frame: f.t (s), f.s (N x 1, m), f.position (N x 3, m), f.rotation
%   (N x 3 x 3: f.rotation(i, :, :) is point i's R, its columns the directors d1 d2 d3),
%   f.rho, f.radius (N x 1), f.kappa (N x 3, 1/m), f.nu (N x 3), f.energy (J),
%   f.volume_change. Points run base to tip.
  f = rodd_request(c, 'GET', ['/v1/sessions/' id '/frame']);
  if isfield(f, 'rotation')
    n = size(f.rotation, 1);
    f.rotation = permute(reshape(f.rotation', 3, 3, n), [3 2 1]);  % rows of 9 are row-major R
  end
end
